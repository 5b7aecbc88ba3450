/** Words for messages and docs made from a resource's names. */

/**
 * The word with its indefinite article, as it is said: "an attachment", "a property", "a unit".
 * By the first letter's sound: a vowel is "an", but for a "you" sound (uni-, use-, eu-) and "one".
 */
export function aOr(word: string, capital = false): string {
  const an = /^[aeiou]/i.test(word) && !/^(uni|use|usu|eu|one\b)/i.test(word);
  const article = an ? 'an' : 'a';
  return `${capital ? article.replace(/^a/, 'A') : article} ${word}`;
}

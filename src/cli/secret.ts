/** Reads a line from the terminal without echoing it (for tokens). */
export async function readSecret(question: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(question);
  if (!stdin.isTTY) throw new Error('cannot read a secret: standard input is not a terminal');
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * A database password never shows, in whatever form the connection string holds it (finding 8 of
 * the third security round: an unencoded / # ? @ in a URL's password, libpq's key=value form).
 */
import { describe, expect, it } from 'vitest';
import { passwordsIn, printableUrl, visible } from '../../src/core/redact.js';

describe('printableUrl hides the password', () => {
  const cases: [string, string][] = [
    ['postgres://pm:s3cret@db:5432/pm', 'postgres://pm:***@db:5432/pm'],
    // Unencoded characters a URL parser reads as the start of a path, a fragment or a query.
    ['postgres://pm:p@ss/w#r?d@db:5432/pm', 'postgres://pm:***@db:5432/pm'],
    ['postgresql://pm:a%40b%2Fc@db/pm', 'postgresql://pm:***@db/pm'],
    ['postgres://pm@db/pm?sslmode=require&password=qu3ry', 'postgres://pm@db/pm?sslmode=require&password=***'],
    ['host=db user=pm password=k3yval dbname=pm', 'host=db user=pm password=*** dbname=pm'],
    ["host=db password = 'with space\\'s' dbname=pm", 'host=db password = *** dbname=pm'],
    ['postgres://pm@db/pm', 'postgres://pm@db/pm'],
    ['https://example.com/a@b', 'https://example.com/a@b'],
  ];
  for (const [given, shown] of cases)
    it(given, () => {
      expect(printableUrl(given)).toBe(shown);
    });

  it('also as it appears decoded in a message', () => {
    expect(passwordsIn('postgres://pm:a%40b@db/pm')).toContain('a@b');
  });
});

describe('visible', () => {
  it('turns control characters and bidi overrides into spaces', () => {
    expect(visible('a\x1b[31mb\u009bc\u202ed\u2066e')).toBe('a [31mb c d e');
  });
});

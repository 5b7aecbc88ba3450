/**
 * A request's body (http.ts and embedded.ts both hand one to the API core), and the one place its
 * size limit is kept: a declared length over MAX_BODY_BYTES is refused unread, a chunked body past
 * it; what is read is decoded as UTF-8 (a leading BOM dropped, as TextDecoder does).
 */
import { ApiError } from '../core/errors.js';
import { MAX_BODY_BYTES } from '../core/limits.js';

function bodyTooLarge(): ApiError {
  return new ApiError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
}

/** Where a body's bytes come from: a request stream, or the bytes already at hand. */
type BodySource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export class RequestBody {
  #text: Promise<string> | undefined;
  #complete = false;
  #read = 0;

  /**
   * @param declaredLength the Content-Length, when the request declares one; undefined for a
   *   body of undeclared length (chunked). A request with neither has a body of length 0.
   * @param source the bytes, read at most once, and only when the body is asked for.
   */
  constructor(
    readonly declaredLength: number | undefined,
    private readonly source: () => BodySource,
  ) {}

  /** A body of bytes already at hand (the in-process callers): its length is known. */
  static of(bytes: Uint8Array): RequestBody {
    return new RequestBody(bytes.byteLength, () => [bytes]);
  }

  /** Whether the whole body (none counts) has been read: an answer sent before it was closes an HTTP connection. */
  get complete(): boolean {
    return this.#complete || this.declaredLength === 0;
  }

  /**
   * What a route that takes a body does before anything else: refuse a declared length over the
   * limit, unread. A body of undeclared length is read only after authentication, when the
   * handler asks for it: a request without a valid token gets its 401 without its body read.
   */
  async settle(): Promise<void> {
    if (this.declaredLength !== undefined && this.declaredLength > MAX_BODY_BYTES) throw bodyTooLarge();
  }

  /** The bytes of it read so far. */
  get bytesRead(): number {
    return this.#read;
  }

  /**
   * The body as bytes, as they come: at most `limit` of them (413 past it). A route that takes a
   * file (attachments.ts) reads it so, never holding it all; `text` reads it so too. Read once.
   */
  async *bytes(limit: number, tooLarge: () => ApiError): AsyncGenerator<Uint8Array> {
    if (this.declaredLength !== undefined && this.declaredLength > limit) throw tooLarge();
    let size = 0;
    try {
      for await (const chunk of this.source()) {
        size += chunk.byteLength;
        this.#read = size;
        if (size > limit) throw tooLarge();
        yield chunk;
      }
    } catch (e) {
      if (e instanceof ApiError) throw e;
      // The client went away, or sent a broken chunked body: nobody is left to tell but the client.
      throw new ApiError(400, 'The request body could not be read.');
    }
    this.#complete = true;
  }

  /** The body as text, read once (after `settle`); 413 past the limit. */
  text(): Promise<string> {
    this.#text ??= this.read();
    return this.#text;
  }

  private async read(): Promise<string> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.bytes(MAX_BODY_BYTES, bodyTooLarge)) chunks.push(chunk);
    try {
      // Bytes that are not UTF-8 are refused, not silently replaced.
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, this.#read));
    } catch {
      throw new ApiError(400, 'The request body is not valid UTF-8.');
    }
  }
}

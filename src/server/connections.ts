/**
 * What one client may hold of `pm serve`'s connections (docs/security.md, "Connections"): a share
 * per address, the server's cap kept by closing the connection idle longest, a few requests in
 * hand per connection, and a lingering close, so that an answer sent early is read.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections held at once by default (each costs a file descriptor and a parser). */
export const MAX_CONNECTIONS = 256;
/** Connections one address (an IPv6 /64) holds at once by default. */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;
/**
 * How long a connection must have had no request in hand before a new one at a cap may take its
 * place: long enough for a client's next request on a keep-alive connection, far shorter than a
 * slow client's headers may take.
 */
const EVICT_IDLE_MS = 1_000;
/**
 * Requests of one connection in hand at once: sent pipelined, their answers not yet handed to the
 * socket. Node parses all that one read brings (64 KiB at most), and reads no more while over 16
 * KiB of answers wait to be read; a request past these few is not answered, nothing more is read,
 * and the connection is closed once the requests in hand are answered (a client that pipelines
 * sends again what was not answered). So one read of pipelined requests costs a few answers, and
 * what else it held is freed as the connection closes.
 */
export const MAX_PIPELINED = 8;
/** A lingering close reads and throws away what the client still sends for at most this long... */
const LINGER_MS = 10_000;
/** ...and stops sooner when the client has sent nothing for this long. */
const LINGER_IDLE_MS = 2_000;

interface ConnectionLimits {
  readonly max: number;
  readonly perAddress: number;
}

/** One connection as the limits see it. */
export class Connection {
  #inHand = 0;
  #idleSince = Date.now();
  /** Past MAX_PIPELINED: no request taken, nothing more read. */
  #overflowed = false;
  /** In a lingering close: no request taken. */
  #lingering = false;

  constructor(
    readonly socket: Socket,
    readonly address: string,
  ) {}

  /** Whether a request just parsed is to be answered (see MAX_PIPELINED). */
  take(): boolean {
    if (this.#overflowed || this.#lingering) return false;
    if (this.#inHand < MAX_PIPELINED) {
      this.#inHand++;
      return true;
    }
    this.#overflowed = true;
    // Node parses the rest of what it has read; it starts reading again after each request it
    // parses, and this stops it each time.
    this.socket.on('resume', () => this.socket.pause()).pause();
    return false;
  }

  /** A taken request's answer was handed to the socket, or its request went away. */
  done(): void {
    if (--this.#inHand > 0) return;
    this.#idleSince = Date.now();
    if (!this.#overflowed) return;
    // The answers sent, the connection is closed; the client sends again what was not answered.
    const socket = this.socket;
    const stuck = setTimeout(() => socket.destroy(), LINGER_IDLE_MS).unref();
    socket.once('close', () => clearTimeout(stuck)).destroySoon();
  }

  /** How long it has had no request in hand (-1 while it has one). */
  idleFor(now: number): number {
    return this.#inHand > 0 ? -1 : now - this.#idleSince;
  }

  /**
   * Closes the connection once the answer being written is sent, lingering (below): Node ends a
   * connection after an answer that says `Connection: close` with `destroySoon` (end, then
   * destroy once written), which resets it under a client still sending the body.
   */
  lingerAfterAnswer(req: IncomingMessage): void {
    this.socket.destroySoon = () => this.linger(req);
  }

  /**
   * A lingering close (RFC 9112, 9.6): the answers written are sent and the connection half
   * closed, then the rest of `req`'s body is read and thrown away until the client closes its
   * side, sends nothing for LINGER_IDLE_MS, or LINGER_MS have passed; only then is the connection
   * closed (unread data would reset it, and a reset may discard the answer before the client reads
   * it). A client that writes a whole body before it reads gets the answer, not a reset.
   */
  linger(req: IncomingMessage): void {
    if (this.#lingering) return;
    this.#lingering = true;
    const socket = this.socket;
    const close = () => socket.destroy();
    const deadline = setTimeout(close, LINGER_MS).unref();
    const idle = setTimeout(close, LINGER_IDLE_MS).unref();
    socket.once('close', () => {
      clearTimeout(deadline);
      clearTimeout(idle);
    });
    req.on('data', () => idle.refresh()).resume();
    socket.end();
  }
}

/**
 * Keeps the server's connections within `limits`: a new connection from an address holding its
 * share, or one that finds the server at its cap, takes the place of the connection idle longest
 * (at least EVICT_IDLE_MS), of that address or of the address holding most; when there is none, it
 * is closed as it comes. A connection with a request in hand is never closed for another.
 * Returns how to find a socket's Connection.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): (socket: Socket) => Connection | undefined {
  const all = new Map<Socket, Connection>();
  const byAddress = new Map<string, Set<Connection>>();

  const forget = (conn: Connection) => {
    all.delete(conn.socket);
    const mine = byAddress.get(conn.address);
    mine?.delete(conn);
    if (mine?.size === 0) byAddress.delete(conn.address);
  };

  /** Closes the connection idle longest of `among`, the address holding most first; false when none may be. */
  const evict = (among: Iterable<Connection>): boolean => {
    const now = Date.now();
    let best: { conn: Connection; held: number; idle: number } | undefined;
    for (const conn of among) {
      const idle = conn.idleFor(now);
      if (idle < EVICT_IDLE_MS) continue;
      const held = byAddress.get(conn.address)?.size ?? 0;
      if (!best || held > best.held || (held === best.held && idle > best.idle)) best = { conn, held, idle };
    }
    if (!best) return false;
    forget(best.conn);
    best.conn.socket.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress === undefined ? undefined : addressKey(socket.remoteAddress);
    if (address === undefined) return socket.destroy();
    const mine = byAddress.get(address) ?? new Set<Connection>();
    if (mine.size >= limits.perAddress && !evict(mine)) return socket.destroy();
    if (all.size >= limits.max && !evict(all.values())) return socket.destroy();
    const conn = new Connection(socket, address);
    all.set(socket, conn);
    byAddress.set(address, mine.add(conn));
    socket.once('close', () => forget(conn));
  });
  return (socket) => all.get(socket);
}

/**
 * What connections are counted by: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or an IPv6
 * address's /64, which one host usually has to itself.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  const [head = '', tail] = (address.split('%', 1)[0] as string).toLowerCase().split('::');
  const groups = head === '' ? [] : head.split(':');
  if (tail !== undefined) {
    const after = tail === '' ? [] : tail.split(':');
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - after.length)).fill('0'), ...after);
  }
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

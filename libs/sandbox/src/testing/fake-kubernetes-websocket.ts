import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** RFC 6455's fixed GUID that the server's accept key is derived with. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/**
 * The server end of one WebSocket (RFC 6455), just what an exec needs: it completes the
 * handshake with the chosen subprotocol, unmasks the client's frames (reassembling fragments),
 * answers pings and close, and sends unmasked binary frames. Written here rather than taken from
 * a package so the fake's wire format is all in view.
 */
export class ServerWebSocket {
  private buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private closed = false;
  private onMessage: (payload: Buffer) => void = () => undefined;
  private onClose: () => void = () => undefined;

  private constructor(private readonly socket: Duplex) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.closedByPeer());
    socket.on('error', () => this.closedByPeer());
  }

  /** Answers the upgrade request (101 with the accept key and `protocol`) and wraps the socket. */
  static accept(request: IncomingMessage, socket: Duplex, protocol: string): ServerWebSocket {
    const key = request.headers['sec-websocket-key'] ?? '';
    const accept = createHash('sha1').update(`${key}${HANDSHAKE_GUID}`).digest('base64');
    socket.write(
      [
        'HTTP/1.1 101 Switching Protocols',
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Accept: ${accept}`,
        `Sec-WebSocket-Protocol: ${protocol}`,
        '',
        '',
      ].join('\r\n'),
    );
    return new ServerWebSocket(socket);
  }

  /** Receives every complete data message (text or binary) as bytes. */
  messages(listener: (payload: Buffer) => void): void {
    this.onMessage = listener;
  }

  /** Called once, when the peer closes or the connection drops. */
  closed$(listener: () => void): void {
    this.onClose = listener;
  }

  send(payload: Buffer): void {
    this.frame(OPCODE.binary, payload);
  }

  /** Sends a close frame (1000, normal) and ends the connection. */
  close(): void {
    if (this.closed) return;
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1000);
    this.frame(OPCODE.close, code);
    this.closed = true;
    this.socket.end();
  }

  private frame(opcode: number, payload: Buffer): void {
    if (this.closed || this.socket.destroyed) return;
    const length = payload.length;
    let header: Buffer;
    if (length < 126) {
      header = Buffer.from([0x80 | opcode, length]);
    } else if (length < 65_536) {
      header = Buffer.alloc(4);
      header.writeUInt16BE(length, 2);
      header[1] = 126;
    } else {
      header = Buffer.alloc(10);
      header.writeBigUInt64BE(BigInt(length), 2);
      header[1] = 127;
    }
    header[0] = 0x80 | opcode;
    this.socket.write(Buffer.concat([header, payload]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) return;
      this.handle(frame.fin, frame.opcode, frame.payload);
    }
  }

  /** One complete client frame off the buffer (clients always mask), or null until there is one. */
  private nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | null {
    const b = this.buffer;
    if (b.length < 2) return null;
    let length = (b[1] ?? 0) & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return null;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return null;
      length = Number(b.readBigUInt64BE(2));
      offset = 10;
    }
    const masked = ((b[1] ?? 0) & 0x80) !== 0;
    const maskEnd = offset + (masked ? 4 : 0);
    if (b.length < maskEnd + length) return null;
    const payload = Buffer.from(b.subarray(maskEnd, maskEnd + length));
    if (masked) {
      const mask = b.subarray(offset, maskEnd);
      for (let i = 0; i < payload.length; i += 1)
        payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
    }
    this.buffer = b.subarray(maskEnd + length);
    return { fin: ((b[0] ?? 0) & 0x80) !== 0, opcode: (b[0] ?? 0) & 0x0f, payload };
  }

  private handle(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode === OPCODE.ping) return this.frame(OPCODE.pong, payload);
    if (opcode === OPCODE.pong) return;
    if (opcode === OPCODE.close) {
      this.close();
      return this.closedByPeer();
    }
    this.fragments.push(payload);
    if (!fin) return;
    const message = Buffer.concat(this.fragments);
    this.fragments = [];
    if (opcode === OPCODE.text || opcode === OPCODE.binary || opcode === OPCODE.continuation)
      this.onMessage(message);
  }

  private closedByPeer(): void {
    const listener = this.onClose;
    this.onClose = () => undefined;
    this.closed = true;
    listener();
  }
}

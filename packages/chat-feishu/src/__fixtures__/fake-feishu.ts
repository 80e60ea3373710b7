import type { Server } from 'node:http';
import protobuf from 'protobufjs';
import { WebSocketServer, type WebSocket } from 'ws';
import { FakeFeishu as FakeFeishuApi } from '../testing/fake-feishu.js';

export { cardAction, messageEvent, postCallback, type FeishuCall } from '../testing/fake-feishu.js';

/** The long connection's frame (pbbp2), as the SDK encodes it. */
const root = protobuf.Root.fromJSON({
  nested: {
    pbbp2: {
      nested: {
        Header: {
          fields: {
            key: { rule: 'required', type: 'string', id: 1 },
            value: { rule: 'required', type: 'string', id: 2 },
          },
        },
        Frame: {
          fields: {
            SeqID: { rule: 'required', type: 'uint64', id: 1 },
            LogID: { rule: 'required', type: 'uint64', id: 2 },
            service: { rule: 'required', type: 'int32', id: 3 },
            method: { rule: 'required', type: 'int32', id: 4 },
            headers: { rule: 'repeated', type: 'Header', id: 5 },
            payloadEncoding: { type: 'string', id: 6 },
            payloadType: { type: 'string', id: 7 },
            payload: { type: 'bytes', id: 8 },
            LogIDNew: { type: 'string', id: 9 },
          },
        },
      },
    },
  },
});
const Frame = root.lookupType('pbbp2.Frame');

/**
 * A local Feishu / Lark with its long connection: the Open API of
 * `@interlock/chat-feishu/testing`, and the WebSocket `/callback/ws/endpoint` hands out,
 * whose frames are the SDK's protobuf (`pbbp2.Frame`), with an event's answer sent back on
 * the same frame.
 */
export class FakeFeishu extends FakeFeishuApi {
  private socket: WebSocket | undefined;
  private readonly answers = new Map<string, (payload: unknown) => void>();
  private connected: (() => void) | undefined;
  private listening = false;

  protected override serve(server: Server): void {
    const sockets = new WebSocketServer({ noServer: true });
    server.on('upgrade', (request, socket, head) => {
      sockets.handleUpgrade(request, socket, head, (ws) => {
        this.socket = ws;
        ws.on('message', (data: Buffer) => {
          const frame = Frame.toObject(Frame.decode(data), { longs: Number, bytes: Buffer }) as {
            method: number;
            headers: { key: string; value: string }[];
            payload?: Buffer;
          };
          if (frame.method !== 1) {
            // The client's first ping: it listens for frames now.
            this.listening = true;
            this.connected?.();
            return;
          }
          const id = frame.headers.find((header) => header.key === 'message_id')?.value ?? '';
          const answer = JSON.parse(frame.payload?.toString('utf8') ?? '{}') as { code: number; data?: string };
          this.answers.get(id)?.(
            answer.data === undefined ? undefined : JSON.parse(Buffer.from(answer.data, 'base64').toString('utf8')),
          );
        });
      });
    });
  }

  override async stop(): Promise<void> {
    this.socket?.terminate();
    await super.stop();
  }

  /** Resolves once the SDK's client is connected and listening (its first ping arrived). */
  whenConnected(): Promise<void> {
    if (this.listening) return Promise.resolve();
    return new Promise((resolve) => (this.connected = resolve));
  }

  /** Sends an event over the long connection; resolves with the connector's answer (a card action's toast). */
  sendEvent(event: unknown): Promise<unknown> {
    const id = `msg-${this.next++}`;
    return new Promise((resolve) => {
      this.answers.set(id, resolve);
      const frame = Frame.create({
        SeqID: 0,
        LogID: 0,
        service: 7,
        method: 1,
        headers: [
          { key: 'type', value: 'event' },
          { key: 'message_id', value: id },
          { key: 'sum', value: '1' },
          { key: 'seq', value: '0' },
          { key: 'trace_id', value: 'trace' },
        ],
        payload: Buffer.from(JSON.stringify(event)),
      });
      this.socket?.send(Frame.encode(frame).finish());
    });
  }
}

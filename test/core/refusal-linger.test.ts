import net from "node:net";
import type { Gateway } from "../../app/gateway";
import { DEFAULT_INBOUND } from "../../config/types";
import { removeTempDirs } from "../support/gateway-config";
import { partnerGateway } from "../support/partner-gateway";

/**
 * Issue #23, the refused-D3 flood: what is read of a refused request once its 413 is out
 * (core/http/refusal-pacing.ts refusalAnswered). A refusal answered within its address's allowance
 * (`refusals_per_second`) is lingered after for up to `max_body_bytes`, so that a client still sending gets
 * the answer and a clean close; one that waited for its slot (its address sends refused bodies faster than
 * that) for 64 KiB only, past which the gateway closes with the rest unread (a reset). Raw sockets on
 * loopback; what is checked is how much the client could send, never a duration.
 */
let gateway: Gateway;
let port: number;
let auth: string;

beforeEach(async () => {
  ({ gateway, port, auth } = await partnerGateway({ inbound: { ...DEFAULT_INBOUND, refusals_per_second: 1 } }));
});

afterEach(() => gateway.close());
afterAll(() => removeTempDirs());

const KIB = 1024;
const PIECE = Buffer.alloc(64 * KIB, 0x20);

/**
 * A Token PUT declaring more than `max_body_bytes` (refused at its Content-Length); once the 413 is in, the
 * client sends the body on, 64 KiB every 20 ms, until it has sent `upTo` bytes (then it ends its side) or the
 * connection fails: its status, what it sent after the answer, and whether the connection was reset.
 */
const sendOnAfterRefusal = (uid: string, upTo: number): Promise<{ status: number; sentAfter: number; reset: boolean }> =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let text = "";
    let status = 0;
    let sentAfter = 0;
    let reset = false;
    socket.setEncoding("latin1");
    socket.on("error", () => (reset = true));
    socket.on("close", () => (status ? resolve({ status, sentAfter, reset }) : reject(new Error(`closed without an answer: ${text.slice(0, 200)}`))));
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (status || !text.includes("\r\n\r\n")) return;
      status = Number(text.split(" ")[1]);
      void (async () => {
        while (sentAfter < upTo && !reset && !socket.destroyed) {
          await new Promise<void>((written) => socket.write(PIECE, () => written()));
          if (!reset) sentAfter += PIECE.length;
          await new Promise((pause) => setTimeout(pause, 20));
        }
        if (!socket.destroyed) socket.end();
      })();
    });
    socket.on("connect", () => {
      const head = [`PUT /ocpi/2.3.0/receiver/tokens/DE/EMS/${uid} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${auth}`, "Content-Type: application/json", `Content-Length: ${DEFAULT_INBOUND.max_body_bytes + 64 * 1024 * KIB}`];
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
    });
  });

describe("what is read of a refused request once it is answered", () => {
  it("answered within its address's allowance: the client sends 512 KiB more and closes, the connection is not reset", async () => {
    const refused = await sendOnAfterRefusal("OVER1", 512 * KIB);
    expect(refused).toEqual({ status: 413, sentAfter: 512 * KIB, reset: false });
  });

  it("answered after waiting for its slot: the connection is reset once 64 KiB more came, well before max_body_bytes", async () => {
    // the first refusal takes the allowance (one a second); the second waits for its slot
    const first = sendOnAfterRefusal("OVER1", 0);
    const second = await sendOnAfterRefusal("OVER2", 16 * 1024 * KIB);
    expect((await first).status).toBe(413);
    expect(second.status).toBe(413);
    expect(second.reset).toBe(true);
    expect(second.sentAfter).toBeLessThan(DEFAULT_INBOUND.max_body_bytes / 2);
  });
});

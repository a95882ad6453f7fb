// Runs inside the sending host's namespace: `ip netns exec NS node probe.mjs`. Reads one JSON
// command per stdin line and writes one JSON result per line, so one process serves many probes:
//   {"op":"probe","proto":"tcp","dst":"10.0.0.1","dport":80,"sport":40001,"timeoutMs":1500}
//   {"op":"mark","port":N}  sends a UDP datagram 127.0.0.1:N -> 127.0.0.1:1 that a trace monitor
//                           of this namespace sees; N tells one marker from an earlier one
// Every probe is bounded by its timeout; nothing here retries.
import dgram from 'node:dgram';
import net from 'node:net';
import readline from 'node:readline';

const MARK_PORT = 1;

function parseAnswer(text) {
  try {
    const a = JSON.parse(text.trim().split('\n')[0] ?? '');
    return {
      kind: 'answered',
      reply: a.reply,
      srcSeen: a.src,
      srcPortSeen: a.sport,
      dstSeen: a.dst,
      dstPortSeen: a.dport,
    };
  } catch {
    return { kind: 'garbled', text };
  }
}

function tcpProbe(c) {
  return new Promise((resolve) => {
    const started = Date.now();
    let data = '';
    let connected = false;
    let local = '';
    const opts = { host: c.dst, port: c.dport };
    if (c.src) opts.localAddress = c.src;
    if (c.sport) opts.localPort = c.sport;
    const sock = net.connect(opts);
    const done = (r) => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ ...r, local, ms: Date.now() - started });
    };
    const timer = setTimeout(() => done({ kind: 'timeout', connected }), c.timeoutMs ?? 1500);
    sock.on('connect', () => {
      connected = true;
      local = `${sock.localAddress}:${sock.localPort}`;
    });
    sock.on('data', (d) => (data += d));
    sock.on('end', () => done(parseAnswer(data)));
    sock.on('error', (e) => done({ kind: 'error', code: e.code ?? String(e) }));
  });
}

function udpProbe(c) {
  return new Promise((resolve) => {
    const started = Date.now();
    const sock = dgram.createSocket('udp4');
    let local = '';
    const done = (r) => {
      clearTimeout(timer);
      try {
        sock.close();
      } catch {
        // already closed
      }
      resolve({ ...r, local, ms: Date.now() - started });
    };
    const timer = setTimeout(
      () => done({ kind: 'timeout', connected: false }),
      c.timeoutMs ?? 1500,
    );
    // A connected UDP socket: ICMP port unreachable comes back as ECONNREFUSED.
    sock.on('error', (e) => done({ kind: 'error', code: e.code ?? String(e) }));
    sock.on('message', (m) => done(parseAnswer(String(m))));
    sock.bind({ address: c.src || '0.0.0.0', port: c.sport || 0 }, () => {
      sock.connect(c.dport, c.dst, (err) => {
        if (err) return done({ kind: 'error', code: err.code ?? String(err) });
        const a = sock.address();
        local = `${a.address}:${a.port}`;
        sock.send('probe\n', (e) => e && done({ kind: 'error', code: e.code ?? String(e) }));
      });
    });
  });
}

// Markers go to our own socket on 127.0.0.1:MARK_PORT, so no ICMP error follows them; the
// nonce travels as the source port.
let sink = null;
function mark(nonce) {
  return new Promise((resolve) => {
    const send = () => {
      const sock = dgram.createSocket('udp4');
      const done = () => {
        sock.close();
        resolve({ kind: 'marked' });
      };
      sock.on('error', done);
      sock.bind({ address: '127.0.0.1', port: nonce, exclusive: true }, () => {
        sock.send('mark', MARK_PORT, '127.0.0.1', done);
      });
    };
    if (sink) return send();
    sink = dgram.createSocket('udp4');
    sink.on('message', () => {});
    sink.bind({ address: '127.0.0.1', port: MARK_PORT, exclusive: true }, send);
  });
}

const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => {
  // Commands run strictly one after another: traces are sliced per probe by time.
  chain = chain.then(async () => {
    let c;
    try {
      c = JSON.parse(line);
    } catch {
      return;
    }
    let r;
    if (c.op === 'mark') r = await mark(c.port);
    else if (c.proto === 'tcp') r = await tcpProbe(c);
    else if (c.proto === 'udp') r = await udpProbe(c);
    else r = { kind: 'error', code: `unsupported protocol ${c.proto}` };
    process.stdout.write(`${JSON.stringify({ id: c.id, ...r })}\n`);
  });
});
rl.on('close', () => chain.then(() => process.exit(0)));

// Runs inside a host's network namespace: `ip netns exec NS node listener.mjs '<json>'`.
// Listens on every socket of the spec and answers each connection (TCP) or datagram (UDP) with
// one JSON line: the listener's identity and the addresses the socket saw. Prints {"ready":true}
// once every socket is bound, or {"error":...} and exits.
import dgram from 'node:dgram';
import net from 'node:net';

const specs = JSON.parse(process.argv[2] ?? '[]');

function answer(spec, src, sport, dst, dport) {
  return `${JSON.stringify({ reply: spec.reply, src, sport, dst, dport })}\n`;
}

function listen(spec) {
  return new Promise((resolve, reject) => {
    if (spec.proto === 'tcp') {
      const server = net.createServer((sock) => {
        sock.on('error', () => {});
        sock.end(
          answer(spec, sock.remoteAddress, sock.remotePort, sock.localAddress, sock.localPort),
        );
      });
      server.on('error', reject);
      // exclusive: a port already taken fails here instead of silently sharing it.
      server.listen({ host: spec.address, port: spec.port, exclusive: true }, resolve);
    } else if (spec.proto === 'udp') {
      const sock = dgram.createSocket(spec.address.includes(':') ? 'udp6' : 'udp4');
      sock.on('error', reject);
      sock.on('message', (_msg, rinfo) => {
        const local = sock.address();
        sock.send(
          answer(spec, rinfo.address, rinfo.port, local.address, local.port),
          rinfo.port,
          rinfo.address,
        );
      });
      sock.bind({ address: spec.address, port: spec.port, exclusive: true }, resolve);
    } else {
      reject(new Error(`unsupported listener protocol ${spec.proto}`));
    }
  });
}

Promise.all(specs.map(listen)).then(
  () => process.stdout.write('{"ready":true}\n'),
  (e) => {
    process.stdout.write(`${JSON.stringify({ error: String(e && e.message ? e.message : e) })}\n`);
    process.exit(1);
  },
);
// The parent kills us at teardown; never outlive it if it dies first.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();

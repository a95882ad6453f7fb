/**
 * A plain static file server (node:http), the way GitHub Pages serves the site: files under a
 * mount path such as `/a/b/hookpath/`, `index.html` for a directory, 404 for anything else and no
 * single-page-app rewrites. The e2e tests use it to prove the build works from a nested subpath
 * and offline; `override` lets a test publish a new service worker without a second build.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
};

export interface StaticSite {
  /** The site's address, ending in the mount path: `http://127.0.0.1:PORT/a/b/hookpath/`. */
  readonly url: string;
  /** Serves `body` instead of the file at `path` (relative to the mount), or the file again. */
  override(path: string, body: string | null): void;
  /** Paths (relative to the mount) requested so far, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function serveStatic(
  root: string,
  opts: { mount?: string; port?: number; host?: string } = {},
): Promise<StaticSite> {
  const dir = resolve(root);
  const mount = opts.mount ?? '/';
  const host = opts.host ?? '127.0.0.1';
  const overrides = new Map<string, string>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (!path.startsWith(mount)) return void res.writeHead(404).end('not found');
    let rel = path.slice(mount.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    requests.push(rel);
    const file = resolve(join(dir, rel));
    if (!file.startsWith(dir + sep)) return void res.writeHead(403).end();
    const headers = {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    };
    const body = overrides.get(rel);
    if (body !== undefined) return void res.writeHead(200, headers).end(body);
    readFile(file).then(
      (data) => res.writeHead(200, headers).end(data),
      () => res.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}${mount}`,
    requests,
    override(path, body) {
      if (body === null) overrides.delete(path);
      else overrides.set(path, body);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// A real npm registry for the tests that install the package by name: verdaccio, in this process,
// on 127.0.0.1, with no uplink (it serves only what is published to it, and nothing leaves the
// machine). Tarballs are published as `npm publish` sends them (one PUT of the manifest with the
// tarball attached, as libnpmpublish builds it), from this process: an npm process per tarball
// would cost more CPU than the publishing itself.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

export interface Registry {
  /** Its url, with a trailing slash. */
  url: string
  /** A user's token, which publishing needs (as an `.npmrc` line would give it to npm). */
  token: string
  /** Publishes a tarball under the tag `latest`. */
  publish(tarball: string): Promise<void>
  close(): Promise<void>
}

/** A registry with its storage in `dir`, and a user who may publish. */
export async function startRegistry(dir: string): Promise<Registry> {
  // Untyped on purpose: verdaccio's declarations name packages it does not install.
  const verdaccio = 'verdaccio'
  const { runServer } = (await import(verdaccio)) as { runServer: (config: unknown) => Promise<Server> }
  const config = {
    self_path: dir,
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$authenticated' } },
    web: { enable: false },
    // The platform package holds the whole native binary.
    max_body_size: '200mb',
    log: { type: 'stdout', format: 'pretty', level: 'fatal' },
  }
  const server = await runServer(config)
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}/`
  const token = await addUser(url)
  return {
    url,
    token,
    publish: (tarball) => publish(url, token, tarball),
    close: () => new Promise((closed) => server.close(() => closed())),
  }
}

/** Adds a user to the registry and returns its token. */
async function addUser(url: string): Promise<string> {
  const response = await fetch(new URL('-/user/org.couchdb.user:e2e', url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'e2e', password: 'e2e-password' }),
  })
  const body = (await response.json()) as { token?: string }
  assert.ok(body.token, `the registry created no user: ${JSON.stringify(body)}`)
  return body.token
}

/** `npm publish <tarball> --tag latest`: the tarball's own manifest, its integrity, the tarball attached. */
async function publish(url: string, token: string, tarball: string): Promise<void> {
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }))
  const { name, version } = manifest as { name: string; version: string }
  const data = readFileSync(tarball)
  const file = `${name}-${version}.tgz`
  const document = {
    _id: name,
    name,
    description: manifest.description,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          shasum: createHash('sha1').update(data).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          tarball: new URL(`${name}/-/${file}`, url).href,
        },
      },
    },
    access: null,
    _attachments: {
      [file]: { content_type: 'application/octet-stream', data: data.toString('base64'), length: data.length },
    },
  }
  const response = await fetch(new URL(name.replace('/', '%2f'), url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(document),
  })
  assert.ok(response.ok, `publishing ${file}: HTTP ${response.status} ${await response.text()}`)
}

// A spec file's own server (`startProxy`) over the fake cursor-agent, in a scratch folder of its
// own: the file's environment (`specEnvironment`: the scratch as HOME and data folder, the fake as
// cursor-agent, tool mode cursor unless `settings` say otherwise), the server started before the
// file's tests and closed after them, with the scratch removed.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { specEnvironment } from './env.ts'
import { type FakeRuns, fakeRuns } from './fake-runs.ts'

type ProxyModule = typeof import('../../plugin/proxy/server.ts')
export type RunningProxy = Awaited<ReturnType<ProxyModule['startProxy']>>

export interface SpecServer extends FakeRuns {
  scratch: string
  workspace: string
  /** The server, once the file's `before` ran. */
  proxy(): RunningProxy
}

export function specServer(name: string, settings: Record<string, string> = {}): SpecServer {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), `ocn-${name}-spec-`)))
  const workspace = join(scratch, 'ws')
  mkdirSync(workspace)
  let proxy: RunningProxy | undefined
  specEnvironment({
    HOME: scratch,
    XDG_DATA_HOME: join(scratch, 'data'),
    CURSOR_ACP_WORKSPACE: workspace,
    CURSOR_AGENT_EXECUTABLE: join(__dirname, 'agents', 'fake-cursor-agent.mjs'),
    CURSOR_ACP_TOOL_MODE: 'cursor',
    ...settings,
  })
  before(async () => {
    const { startProxy } = await import('../../plugin/proxy/server.ts')
    proxy = await startProxy({ port: 0 })
  })
  after(async () => {
    await proxy?.close()
    rmSync(scratch, { recursive: true, force: true })
  })
  const started = () => {
    if (proxy === undefined) throw new Error('the server starts in the file’s before()')
    return proxy
  }
  return { scratch, workspace, ...fakeRuns(scratch), proxy: started }
}

/** A raw POST of `body` (JSON text, or a value made JSON) to the server's `path`, with its token. */
export function rawPost(proxy: RunningProxy, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${proxy.url.replace(/\/v1$/, '')}${path}`,
      { method: 'POST', headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json' } },
      (response) => {
        let text = ''
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8')
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
      },
    )
    request.on('error', reject)
    request.end(typeof body === 'string' ? body : JSON.stringify(body))
  })
}

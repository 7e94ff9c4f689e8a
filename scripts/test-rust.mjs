#!/usr/bin/env node
// The core's Rust tests (`npm run test:rust`): `cargo test` without napi, built for the host's
// target triple named as `napi build --platform` names it, so that the two builds share every
// dependency's compiled artifacts in target/<triple>/testing. They differ only in the crate's
// own `node` feature, whose artifacts cargo keeps apart, and `cargo test` never replaces the
// addon's library. Extra arguments go to `cargo test`.
import { execFileSync, spawnSync } from 'node:child_process'

const host = /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]
if (host === undefined) throw new Error('rustc -vV names no host triple')
const args = ['test', '--no-default-features', '--profile', 'testing', '--target', host, ...process.argv.slice(2)]
const ran = spawnSync('cargo', args, { stdio: 'inherit', shell: process.platform === 'win32' })
process.exit(ran.status ?? 1)

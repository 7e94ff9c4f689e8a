// The plugin entry at the package's root, for hosts that load a plugin from a local folder
// without reading package.json's `exports` (OpenCode 2.0.20 resolves `<folder>/server` as a file
// there): it is the same module as `exports["./server"]`.
export { CursorAcpPlugin, default } from './dist/plugin/entry/server.js'

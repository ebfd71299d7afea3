export { EXIT, type ExitCode } from './errors.js'
export { run } from './run.js'

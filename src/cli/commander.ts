// commander, the one place the CLI takes it from. The rambake bin has it bundled in
// (scripts/bundle.mjs): Node neither resolves its package nor compiles its six CommonJS files,
// and it never loads child_process, which commander needs only for executable subcommands.

export { Command, CommanderError, InvalidArgumentError, Option } from 'commander';

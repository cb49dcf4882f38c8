#!/usr/bin/env node
import { runCli } from './cli';

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
}).then(
  (code) => {
    // exitCode, not exit(): lets stdout drain when it is a pipe.
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `error[INTERNAL]: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 70;
  },
);

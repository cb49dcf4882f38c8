import Module from 'node:module';
import path from 'node:path';

/*
 * The console imports contract modules and the SDK's generated operations by
 * file (`@lunanexa/contracts/roles`, `@lunanexa/sdk/generated/operations`,
 * see console/tsconfig.json), which the bundler resolves to their sources.
 * Node finds no such files in the package: its modules are built under
 * dist/src. Every spec imports this module first, so the rules it loads after
 * find the same modules there. Only requests from the console's compiled files
 * are redirected: the unit tier runs every package's specs in this process.
 */
const SOURCE_MODULE = /^@lunanexa\/(contracts|sdk)\/(?!dist\/)(.+)$/;
/** console/test/dist, where this file's compiled copy sits in support/ under test/. */
const CONSOLE_BUILD = path.resolve(__dirname, '..', '..');
/** By path, not package subpath: the SDK's `exports` (rightly) publish only its entry point. */
const LIBS = path.resolve(CONSOLE_BUILD, '..', '..', '..', 'libs');

interface ModuleResolver {
  _resolveFilename(request: string, parent: { filename?: string } | undefined, ...rest: unknown[]): string;
}

const resolver = Module as unknown as ModuleResolver;
const resolveFilename = resolver._resolveFilename.bind(resolver);
resolver._resolveFilename = (request, parent, ...rest) =>
  resolveFilename(
    parent?.filename?.startsWith(CONSOLE_BUILD + path.sep)
      ? request.replace(SOURCE_MODULE, (_, pkg: string, file: string) =>
          path.join(LIBS, pkg, 'dist', 'src', file),
        )
      : request,
    parent,
    ...rest,
  );

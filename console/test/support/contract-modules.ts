import Module from 'node:module';

/*
 * The console imports contract modules by file (`@lunanexa/contracts/roles`,
 * see console/tsconfig.json), which the bundler resolves to their sources.
 * Node finds no such files in the package: its modules are built under
 * dist/src. Every spec imports this module first, so the rules it loads after
 * find the same modules there.
 */
const CONTRACT_MODULE = /^@lunanexa\/contracts\/(?!dist\/)(.+)$/;

interface ModuleResolver {
  _resolveFilename(request: string, ...rest: unknown[]): string;
}

const resolver = Module as unknown as ModuleResolver;
const resolveFilename = resolver._resolveFilename.bind(resolver);
resolver._resolveFilename = (request, ...rest) =>
  resolveFilename(request.replace(CONTRACT_MODULE, '@lunanexa/contracts/dist/src/$1'), ...rest);

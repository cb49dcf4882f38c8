import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');

interface NestCliConfig {
  readonly monorepo: boolean;
  readonly projects: Record<
    string,
    {
      type: string;
      root: string;
      sourceRoot: string;
      entryFile: string;
      compilerOptions: { tsConfigPath: string };
    }
  >;
}

/** The apps whose entry builds a Nest application (the others are plain Node processes). */
function nestApps(): string[] {
  return readdirSync(join(REPO_ROOT, 'apps')).filter((app) => {
    const src = join(REPO_ROOT, 'apps', app, 'src');
    if (!existsSync(src)) return false;
    return readdirSync(src).some(
      (file) => file.endsWith('.ts') && readFileSync(join(src, file), 'utf8').includes('NestFactory.create'),
    );
  });
}

/**
 * nest-cli.json at the top level describes every Nest app, and `nest build api`
 * (the pinned @nestjs/cli) compiles the api from it. The build goes to a
 * scratch directory so the repository's own dist (which other tests run) is
 * never touched; only the output paths differ from the committed config.
 */
describe('nest-cli.json: the Nest apps, and `nest build api` from it', function () {
  this.timeout(180_000);
  const config = JSON.parse(readFileSync(join(REPO_ROOT, 'nest-cli.json'), 'utf8')) as NestCliConfig;

  it('lists every app that builds a Nest application, with its sources and tsconfig', () => {
    expect(nestApps()).to.deep.equal(['api']);
    expect(config.monorepo).to.equal(true);
    for (const app of nestApps()) {
      const project = config.projects[app];
      expect(project, app).to.include({
        type: 'application',
        root: `apps/${app}`,
        sourceRoot: `apps/${app}/src`,
      });
      expect(existsSync(join(REPO_ROOT, project?.compilerOptions.tsConfigPath ?? ''))).to.equal(true);
      expect(
        existsSync(
          join(
            REPO_ROOT,
            project?.sourceRoot ?? '',
            `${(project?.entryFile ?? '').replace(/^src\//, '')}.ts`,
          ),
        ),
      ).to.equal(true);
    }
  });

  it('`nest build api` compiles the api (main and app module) with no error', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'lunanexa-nest-build-'));
    try {
      const out = join(scratch, 'out');
      const api = config.projects['api'];
      if (!api) throw new Error('nest-cli.json has no api project');
      writeFileSync(
        join(scratch, 'tsconfig.json'),
        JSON.stringify({
          extends: join(REPO_ROOT, api.compilerOptions.tsConfigPath),
          compilerOptions: {
            outDir: out,
            tsBuildInfoFile: join(out, '.tsbuildinfo'),
            rootDir: join(REPO_ROOT, api.root),
            typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
          },
          include: [join(REPO_ROOT, api.sourceRoot, '**', '*.ts')],
        }),
      );
      // The CLI joins --config and tsConfigPath to its working directory: pass them relative to it.
      const scratchConfig = {
        ...config,
        projects: {
          ...config.projects,
          api: {
            ...api,
            compilerOptions: {
              ...api.compilerOptions,
              tsConfigPath: relative(REPO_ROOT, join(scratch, 'tsconfig.json')),
            },
          },
        },
      };
      writeFileSync(join(scratch, 'nest-cli.json'), JSON.stringify(scratchConfig));
      const build = spawnSync(
        join(REPO_ROOT, 'node_modules', '.bin', 'nest'),
        ['build', 'api', '--config', relative(REPO_ROOT, join(scratch, 'nest-cli.json'))],
        { cwd: REPO_ROOT, encoding: 'utf8' },
      );
      expect(build.status, `${build.stdout}\n${build.stderr}`).to.equal(0);
      expect(build.stdout + build.stderr).to.not.match(/error/i);
      expect(readFileSync(join(out, 'src', 'main.js'), 'utf8')).to.include('bootstrap');
      expect(existsSync(join(out, 'src', 'app.module.js'))).to.equal(true);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

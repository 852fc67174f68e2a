import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dockerfileInstructions,
  dockerIgnores,
  exitCodeOf,
  fakeDockerBin,
  probeTarget,
  readYaml,
  repoFile,
  runMongosh,
  runStep,
  type MongoNodeState,
  type WorkflowStep,
} from '../support/deploy-files.js';

/**
 * The deployment files reach a serving state on every start (issue #22, faults 6 and 7, and the
 * hosted CI's waits). No Docker daemon, MongoDB or Qdrant runs here, so each check runs the files'
 * own commands against stand-ins: the MongoDB healthcheck's script against a modelled shell, the
 * Qdrant and image healthchecks against a local HTTP server, the workflow's wait steps with a fake
 * `docker` whose services never become ready.
 */

interface Healthcheck {
  test: string[];
  interval?: string;
  retries?: number;
  disable?: boolean;
}
interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  ports?: string[];
  healthcheck?: Healthcheck;
  depends_on?: Record<string, { condition?: string }> | string[];
}
const compose = readYaml('docker-compose.yml') as { services: Record<string, ComposeService> };
const services = compose.services;

/** Compose reads `$$` as a literal `$`; a lone `$` would be interpolated from the environment. */
function composeUnescape(text: string): string {
  expect(text.replace(/\$\$/g, ''), 'a lone $ in a compose command is a variable').not.toContain('$');
  return text.replace(/\$\$/g, '$');
}

describe('docker-compose.yml', () => {
  it('restarts every service after a crash', () => {
    for (const [name, service] of Object.entries(services)) {
      expect([name, service.restart]).toEqual([name, expect.stringMatching(/^(always|unless-stopped)$/)]);
    }
  });

  it('starts the service only once every dependency is healthy, and each has a healthcheck', () => {
    const app = services['tenant-memory']!;
    expect(app.depends_on).toEqual({ mongodb: { condition: 'service_healthy' }, qdrant: { condition: 'service_healthy' } });
    for (const name of ['mongodb', 'qdrant']) expect(services[name]!.healthcheck?.test[0]).toBe('CMD');
    expect(app.healthcheck?.disable, 'the app keeps the image HEALTHCHECK').not.toBe(true);
  });

  describe('the MongoDB healthcheck is healthy only once this node is PRIMARY', () => {
    const mongodb = services.mongodb!;
    const test = mongodb.healthcheck?.test ?? [];
    const evalAt = test.indexOf('--eval');
    const script = () => composeUnescape(test[evalAt + 1] ?? '');
    const replSet = mongodb.command![mongodb.command!.indexOf('--replSet') + 1];

    it('runs mongosh with one --eval script', () => {
      expect(test.slice(0, 2)).toEqual(['CMD', 'mongosh']);
      expect(evalAt).toBeGreaterThan(1);
    });

    const cases: [MongoNodeState, number, boolean][] = [
      ['uninitialized', 1, true],
      ['unreachable', 1, false],
      ['secondary', 1, false],
      ['removed', 1, false],
      ['primary', 0, false],
    ];
    it.each(cases)('a node that is %s: exit code %i, initiates the replica set: %s', (state, exitCode, initiates) => {
      const run = runMongosh(script(), state);
      expect(run.exitCode).toBe(exitCode);
      expect(run.initiated.length > 0).toBe(initiates);
    });

    it('initiates the replica set mongod was started with, this node its one member', () => {
      const [config] = runMongosh(script(), 'uninitialized').initiated as { _id: string; members: { host: string }[] }[];
      expect(config?._id).toBe(replSet);
      expect(config?.members.map((m) => m.host)).toEqual([expect.stringMatching(/^(localhost|127\.0\.0\.1|mongodb):27017$/)]);
    });
  });

  describe('the Qdrant healthcheck asks /readyz with bash (the image has no curl)', () => {
    const test = services.qdrant!.healthcheck?.test ?? [];
    const target = '/dev/tcp/127.0.0.1/6333';
    let status = 200;
    let server: Awaited<ReturnType<typeof probeTarget>>;
    beforeAll(async () => {
      server = await probeTarget(() => status);
    });
    afterAll(() => server.close());

    it('runs bash itself (CMD-SHELL would run dash, which has no /dev/tcp) against Qdrant port', () => {
      expect(test.slice(0, 3)).toEqual(['CMD', 'bash', '-c']);
      expect(test[3]).toContain(target);
      expect(test.join(' ')).not.toMatch(/\b(curl|wget|nc)\b/);
      expect(services.qdrant!.ports).toContain('6333:6333');
    });

    const probe = (port: number) =>
      exitCodeOf('bash', ['-c', composeUnescape(test[3] ?? '').replace(target, `/dev/tcp/127.0.0.1/${port}`)]);
    it.each([
      [200, 0],
      [503, 1],
    ])('Qdrant answering %i: exit code %i', async (answer, exitCode) => {
      status = answer;
      const { code } = await probe(server.port);
      expect(code === 0 ? 0 : 1).toBe(exitCode);
      expect(server.paths.at(-1)).toBe('/readyz');
    });

    it('nothing listening: a non-zero exit', async () => {
      const closed = await probeTarget(() => 200);
      await closed.close();
      expect((await probe(closed.port)).code).not.toBe(0);
    });
  });
});

describe('Dockerfile', () => {
  const instructions = dockerfileInstructions(repoFile('Dockerfile'));
  const all = (keyword: string) => instructions.filter((i) => i.keyword === keyword);
  const last = (keyword: string) => all(keyword).at(-1)?.args;
  const env = Object.fromEntries(all('ENV').flatMap((i) => i.args.split(/\s+/).map((kv) => kv.split('=') as [string, string])));
  const workflow = readYaml('.github/workflows/ci.yml') as { jobs: { test: { strategy: { matrix: { node: number[] } } } } };

  it('runs a Node major that package.json engines allow and the hosted CI tests', () => {
    const major = Number(/^node:(\d+)[-.]/.exec(all('FROM')[0]!.args)?.[1]);
    const engines = (JSON.parse(repoFile('package.json')) as { engines: { node: string } }).engines.node;
    expect(major).toBeGreaterThanOrEqual(Number(/>=\s*(\d+)/.exec(engines)?.[1]));
    expect(workflow.jobs.test.strategy.matrix.node).toContain(major);
  });

  it('runs as a non-root user', () => {
    expect(last('USER')).toMatch(/^[a-z_][a-z0-9_-]*$/);
    expect(last('USER')).not.toMatch(/^(root|0)(:|$)/);
  });

  it('makes the data directory, owned by the runtime user and private, before declaring it a volume', () => {
    const user = last('USER')!;
    const dataDir = env.DATA_DIR!;
    expect(path.posix.isAbsolute(dataDir)).toBe(true);
    const made = instructions.findIndex(
      (i) => i.keyword === 'RUN' && i.args.includes(`mkdir -p ${dataDir}`) && i.args.includes(`chown ${user}:${user} ${dataDir}`),
    );
    const volume = instructions.findIndex((i) => i.keyword === 'VOLUME' && i.args.includes(dataDir));
    expect(made).toBeGreaterThan(-1);
    expect(instructions[made]!.args).toContain(`chmod 700 ${dataDir}`);
    // Build steps after VOLUME do not reach the volume: the directory must be ready before it.
    expect(volume).toBeGreaterThan(made);
    expect(instructions.findIndex((i) => i.keyword === 'USER')).toBeGreaterThan(made);
  });

  it('runs under tini, which it installs, so SIGTERM reaches the service and children are reaped', () => {
    expect(JSON.parse(last('ENTRYPOINT')!)).toEqual(['/usr/bin/tini', '--']);
    expect(all('RUN').some((i) => /apt-get install .*\btini\b/.test(i.args))).toBe(true);
    expect(JSON.parse(last('CMD')!)).toEqual(['node', 'bin/tenant-memory.mjs', 'serve']);
  });

  describe('HEALTHCHECK asks /readyz with node', () => {
    const healthcheck = last('HEALTHCHECK') ?? '';
    const command = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD') + 3).trim() || '[]') as string[];
    let status = 200;
    let server: Awaited<ReturnType<typeof probeTarget>>;
    beforeAll(async () => {
      server = await probeTarget(() => status);
    });
    afterAll(() => server.close());

    it('is an exec-form node command, on the port the image exposes', () => {
      expect(command.slice(0, 2)).toEqual(['node', '-e']);
      expect(last('EXPOSE')).toBe(env.PORT);
      expect(healthcheck).toMatch(/--timeout=\d+s/);
    });

    const probe = (port: number) => exitCodeOf(process.execPath, command.slice(1), { ...process.env, PORT: String(port) });
    it.each([
      [200, 0],
      [503, 1],
    ])('the service answering %i: exit code %i', async (answer, exitCode) => {
      status = answer;
      expect((await probe(server.port)).code).toBe(exitCode);
      expect(server.paths.at(-1)).toBe('/readyz');
    });

    it('nothing listening: exit code 1', async () => {
      const closed = await probeTarget(() => 200);
      await closed.close();
      expect((await probe(closed.port)).code).toBe(1);
    });
  });
});

describe('.dockerignore', () => {
  const patterns = repoFile('.dockerignore').split('\n');

  it.each([
    '.env',
    '.env.production',
    'deploy/.env',
    'data',
    'data/tenant-memory.db',
    'tenant-memory.db-wal',
    'node_modules/x',
    '.git/HEAD',
    'certs/server.key',
    'server.pem',
    'coverage/index.html',
    '.harness/x',
  ])('leaves %s out of the build context', (file) => expect(dockerIgnores(patterns, file)).toBe(true));

  it('keeps every file the image runs', () => {
    const kept = ['package.json', 'package-lock.json'];
    for (const dir of ['bin', 'cli', 'server', 'routers', 'adapters', 'jobs', 'client', 'models', 'patches']) {
      for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
        if (entry.isFile()) kept.push(path.relative(process.cwd(), path.join(entry.parentPath, entry.name)));
      }
    }
    expect(kept.filter((file) => dockerIgnores(patterns, file))).toEqual([]);
  });
});

describe('.github/workflows/ci.yml', () => {
  interface Job {
    env?: Record<string, string>;
    services?: Record<string, unknown>;
    defaults?: { run?: { shell?: string } };
    steps: WorkflowStep[];
  }
  const workflow = readYaml('.github/workflows/ci.yml') as { defaults?: { run?: { shell?: string } }; jobs: Record<string, Job> };
  const jobs = Object.entries(workflow.jobs);
  const shellOf = (job: Job, step: WorkflowStep) => step.shell ?? job.defaults?.run?.shell ?? workflow.defaults?.run?.shell;
  /** Steps that start containers or wait for them: they must fail when the services never become ready. */
  const waits = jobs.flatMap(([name, job]) =>
    job.steps
      .filter((s) => s.if === undefined && /\bdocker (compose\b.*\bup\b|exec\b|inspect\b.*Health)/.test(s.run ?? ''))
      .map((step) => ({ name: `${name}: ${step.name ?? step.run!.split('\n')[0]}`, job, step })),
  );
  let bin: string;
  beforeAll(() => {
    bin = fakeDockerBin();
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));
  const stepEnv = (job: Job, step: WorkflowStep, extra: Record<string, string>) => ({
    ...process.env,
    ...job.env,
    ...step.env,
    ...extra,
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
  });

  it('runs every step with bash -eo pipefail', () => {
    for (const [, job] of jobs) for (const step of job.steps) if (step.run) expect(shellOf(job, step)).toBe('bash');
  });

  it('waits for MongoDB and Qdrant through the compose healthchecks, with a deadline', () => {
    const contract = workflow.jobs['contract-server-profile']!;
    expect(contract.env).toMatchObject({ MONGODB_URL: expect.stringContaining('localhost:27017'), QDRANT_URL: 'http://localhost:6333' });
    const up = contract.steps.find((s) => /\bdocker compose\b.*\bup\b/.test(s.run ?? ''));
    expect(up?.run).toMatch(/--wait\b/);
    expect(up?.run).toMatch(/--wait-timeout \d+/);
    for (const service of ['mongodb', 'qdrant']) expect(up?.run).toContain(service);
  });

  it('passes every compose up a --wait with a --wait-timeout (without --wait, compose returns before healthy)', () => {
    for (const { name, step } of waits.filter((w) => /\bdocker compose\b.*\bup\b/.test(w.step.run!))) {
      expect([name, /--wait\b/.test(step.run!), /--wait-timeout \d+/.test(step.run!)]).toEqual([name, true, true]);
    }
  });

  it('has wait steps', () => expect(waits.length).toBeGreaterThan(0));

  it.each(waits.map((w) => [w.name, w] as const))('%s: succeeds when the services come up', async (_name, { job, step }) => {
    const { code, output } = await runStep(step.run!, shellOf(job, step), stepEnv(job, step, { FAKE_DOCKER: 'ready' }));
    expect(code, output).toBe(0);
  });

  // MongoDB answering as a secondary (state 2) or as removed from the set (10, which `grep 1` matched).
  it.each(waits.flatMap((w) => ['2', '10'].map((s) => [w.name, s, w] as const)))(
    '%s: fails when the services never become ready (myState %s)',
    async (_name, myState, { job, step }) => {
      const { code, output } = await runStep(
        step.run!,
        shellOf(job, step),
        stepEnv(job, step, { FAKE_DOCKER: 'never', FAKE_MYSTATE: myState }),
      );
      expect(code, output).not.toBe(0);
    },
  );
});

import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { parse } from 'yaml';

/**
 * Readers and stand-ins for the deployment files (docker-compose.yml, Dockerfile, .dockerignore, the
 * hosted CI workflow), so test/unit/deploy-files.test.ts can run their commands here, where there is
 * no Docker daemon, MongoDB or Qdrant.
 */

export const repoFile = (name: string) => readFileSync(path.join(process.cwd(), name), 'utf8');
export const readYaml = (name: string): unknown => parse(repoFile(name));

export interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions in order: comments dropped, backslash-continued lines joined. */
export function dockerfileInstructions(text: string): Instruction[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue; // a comment inside a continued instruction
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  return logical.map((l) => {
    const space = l.search(/\s/);
    return { keyword: l.slice(0, space).toUpperCase(), args: l.slice(space + 1).trim() };
  });
}

/**
 * True when .dockerignore's patterns leave `file` (a path relative to the build context) out of the
 * context: patterns are anchored at the root, `*` and `?` stay within one path segment, `**` spans
 * any, a pattern matching a directory leaves out everything below it, and a later `!pattern` takes a
 * path back in.
 */
export function dockerIgnores(patterns: string[], file: string): boolean {
  const prefixes = file.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const raw of patterns) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const re = globRegExp(path.posix.normalize((negated ? line.slice(1) : line).replace(/^\/+/, '')));
    if (prefixes.some((p) => re.test(p))) ignored = !negated;
  }
  return ignored;
}

function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** What a one-node replica set answers, from the shell's point of view. */
export type MongoNodeState = 'unreachable' | 'uninitialized' | 'secondary' | 'removed' | 'primary';

export interface MongoshRun {
  exitCode: number;
  printed: string[];
  /** Configurations passed to rs.initiate. */
  initiated: unknown[];
}

const myState: Record<MongoNodeState, number> = { unreachable: 0, uninitialized: 0, secondary: 2, removed: 10, primary: 1 };

/**
 * Runs a `mongosh --eval` script against a stand-in for the shell's `rs`, `db`, `print` and `quit`,
 * with mongosh's exit rules: the code given to quit(), 1 for an uncaught error, otherwise 0 whatever
 * the script printed (--eval also prints the value of its last expression).
 */
export function runMongosh(script: string, state: MongoNodeState): MongoshRun {
  const printed: string[] = [];
  const initiated: unknown[] = [];
  const serverError = (codeName: string, message: string) => Object.assign(new Error(message), { name: 'MongoServerError', codeName });
  const reachable = () => {
    if (state === 'unreachable') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoNetworkError' });
  };
  class Quit {
    constructor(readonly code: number) {}
  }
  const sandbox = {
    print: (...values: unknown[]) => printed.push(values.map(String).join(' ')),
    quit: (code = 0) => {
      throw new Quit(code);
    },
    rs: {
      status() {
        reachable();
        if (state === 'uninitialized') throw serverError('NotYetInitialized', 'no replset config has been received');
        return { ok: 1, myState: myState[state] };
      },
      initiate(config: unknown) {
        reachable();
        initiated.push(config);
        if (state !== 'uninitialized') throw serverError('AlreadyInitialized', 'already initialized');
        return { ok: 1 };
      },
    },
    db: {
      hello() {
        reachable();
        return { isWritablePrimary: state === 'primary', ok: 1 };
      },
      adminCommand() {
        reachable();
        return { ok: 1 };
      },
    },
  };
  try {
    const last: unknown = vm.runInNewContext(script, sandbox, { timeout: 1000 });
    if (last !== undefined) printed.push(String(last));
    return { exitCode: 0, printed, initiated };
  } catch (err) {
    return { exitCode: err instanceof Quit ? err.code : 1, printed, initiated };
  }
}

/** An HTTP server on an ephemeral loopback port answering every request with `status()`; it records the paths asked for. */
export async function probeTarget(status: () => number): Promise<{ port: number; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(status(), { 'content-type': 'text/plain' }).end('probe');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Runs a program and answers its exit code (never rejects on a non-zero exit). */
export function exitCodeOf(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

/**
 * A directory to put first on PATH with a `docker` that models a host whose services never become
 * ready (`FAKE_DOCKER=never`) or are ready (`ready`), and a `sleep` that returns at once.
 * - `docker compose up`: with `--wait`, exits 1 when never ready (compose's answer to an unhealthy
 *   container or a passed --wait-timeout); without it, 0 as soon as the containers are created.
 * - `docker exec … mongosh … --eval <script>`: the script's outcome in `runMongosh`'s terms is not
 *   known to a shell script, so the node is modelled by its answers: ping and initiate answer 1,
 *   `rs.status().myState` prints FAKE_MYSTATE (2 secondary, 10 removed; 1 when ready), and a script
 *   that asks `isWritablePrimary` exits 1 until the node is primary.
 * - `docker inspect`: `running/starting` for a health status that never turns healthy, `running/healthy`
 *   when ready, and exit code 0.
 * - anything else (build, run, stop, logs, ps): succeeds.
 */
export function fakeDockerBin(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fake-docker-'));
  const docker = `#!/usr/bin/env bash
args="$*"
case "$1" in
  compose)
    if [[ " $args " == *" up "* && " $args " == *" --wait "* && "$FAKE_DOCKER" != ready ]]; then
      echo "container is unhealthy" >&2; exit 1
    fi
    exit 0 ;;
  exec)
    script="\${@: -1}"
    ready=0; [[ "$FAKE_DOCKER" == ready ]] && ready=1
    case "$script" in
      *isWritablePrimary*) [[ $ready == 1 ]] && exit 0; echo "not PRIMARY yet"; exit 1 ;;
      *myState*) [[ $ready == 1 ]] && echo 1 || echo "$FAKE_MYSTATE"; exit 0 ;;
      *) echo 1; exit 0 ;;
    esac ;;
  inspect)
    if [[ "$args" == *ExitCode* ]]; then echo 0; exit 0; fi
    [[ "$FAKE_DOCKER" == ready ]] && echo running/healthy || echo running/starting
    exit 0 ;;
  *) exit 0 ;;
esac
`;
  writeFileSync(path.join(dir, 'docker'), docker);
  writeFileSync(path.join(dir, 'sleep'), '#!/usr/bin/env bash\nexit 0\n');
  chmodSync(path.join(dir, 'docker'), 0o755);
  chmodSync(path.join(dir, 'sleep'), 0o755);
  return dir;
}

export interface WorkflowStep {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
}

/**
 * Runs a workflow step's script as GitHub's Linux runner would: `shell: bash` is
 * `bash --noprofile --norc -eo pipefail`, no shell at all is `bash -e` (no pipefail).
 */
export async function runStep(run: string, shell: string | undefined, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  if (run.includes('${{')) throw new Error(`a step with a workflow expression cannot run here: ${run}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'step-'));
  const file = path.join(dir, 'step.sh');
  writeFileSync(file, run);
  const flags = shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail'] : ['-e'];
  if (shell !== undefined && shell !== 'bash') throw new Error(`unexpected shell ${shell}`);
  try {
    return await exitCodeOf('bash', [...flags, file], env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A one-node Slurm on 127.0.0.1 as the test's own processes (../shared/reference/slurm-one-node.md): munged with
 * its own key, slurmctld and slurmd in the foreground, every file in a scratch directory, ports picked free.
 * Debian's slurmctld, slurmd, slurm-client and munge packages are used as installed (.ci/run installs them).
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SLURM_BINARIES = ['/usr/sbin/munged', '/usr/sbin/mungekey', '/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/sbatch', '/usr/bin/scontrol', '/usr/bin/sinfo', '/usr/bin/squeue'];

/** Why a cluster cannot be started here, or null. */
export function cannotStart(): string | null {
  const missing = SLURM_BINARIES.filter((b) => !existsSync(b));
  if (missing.length > 0) return `Slurm or munge is not installed (missing ${missing.join(', ')}; apt-get install slurmctld slurmd slurm-client munge)`;
  if (process.getuid?.() !== 0) return 'the one-node Slurm runs its daemons as root (SlurmUser=root), and this test is not root';
  return null;
}

export interface Cluster {
  readonly dir: string;
  /** The environment of a Slurm client (sbatch, scontrol): SLURM_CONF. */
  readonly env: NodeJS.ProcessEnv;
  readonly log: () => string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'absolutize-slurm-'));
  for (const d of ['munge', 'state', 'spool', 'log']) mkdirSync(join(dir, d), { mode: 0o700 });
  const processes: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of processes.reverse()) {
      if (p.exitCode === null && p.signalCode === null) {
        const exited = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        await Promise.race([exited, sleep(5000)]);
        if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const key = join(dir, 'munge', 'munge.key');
    const socket = join(dir, 'munge', 'munge.socket.2');
    execFileSync('/usr/sbin/mungekey', ['-c', '-k', key]);
    processes.push(
      spawn('/usr/sbin/munged', ['-F', '--force', `--key-file=${key}`, `--socket=${socket}`, `--pid-file=${join(dir, 'munge', 'munged.pid')}`, `--seed-file=${join(dir, 'munge', 'munged.seed')}`, `--log-file=${join(dir, 'log', 'munged.log')}`], { stdio: 'ignore' }),
    );
    for (let i = 0; i < 1200 && !existsSync(socket); i++) await sleep(50); // up to 60 s: munged starts slowly on a busy machine
    const [ctldPort, dPort] = [await freePort(), await freePort()];
    const conf = join(dir, 'slurm.conf');
    writeFileSync(
      conf,
      `ClusterName=absolutize
SlurmctldHost=localhost(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=${socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${ctldPort}
SlurmdPort=${dPort}
StateSaveLocation=${dir}/state
SlurmdSpoolDir=${dir}/spool
SlurmctldPidFile=${dir}/slurmctld.pid
SlurmdPidFile=${dir}/slurmd.pid
SlurmctldLogFile=${dir}/log/slurmctld.log
SlurmdLogFile=${dir}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MaxArraySize=10001
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
RequeueExit=75
`,
    );
    const env = { ...process.env, SLURM_CONF: conf };
    processes.push(spawn('/usr/sbin/slurmctld', ['-D', '-f', conf], { stdio: 'ignore', env }));
    processes.push(spawn('/usr/sbin/slurmd', ['-D', '-f', conf, '-N', 'localhost'], { stdio: 'ignore', env }));
    const log = (): string => ['slurmctld.log', 'slurmd.log', 'munged.log'].map((f) => `--- ${f}\n${existsSync(join(dir, 'log', f)) ? readFileSync(join(dir, 'log', f), 'utf8') : '(none)'}`).join('\n');
    // Ready when the node is idle.
    for (let i = 0; ; i++) {
      let out = '';
      try {
        out = execFileSync('/usr/bin/sinfo', ['-h', '-o', '%t'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
      } catch {
        // not up yet
      }
      if (out.trim() === 'idle') break;
      if (i > 120) throw new Error(`the one-node Slurm did not become idle in 60 s (sinfo: ${out.trim()})\n${log()}`);
      await sleep(500);
    }
    return { dir, env, log, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Collects results/interlock.jsonl and results/time-interlock-*.txt into
 * results/interlock.json (the shape of the peers' lib/collect.mjs) and writes
 * results/summary.md: the peers' tables with Interlock's rows beside the peers' rows from
 * results/peers/*.json (same machine), the ratios, and where Interlock stands on each target.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function readJsonl(file: string): Json[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line) as Json);
}

function readTimes(dir: string, prefix: string): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const file of fs.readdirSync(dir)) {
    if (!file.startsWith(`time-${prefix}`) || !file.endsWith('.txt')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const match = (re: RegExp) => re.exec(text)?.[1];
    out[file.slice(5, -4)] = {
      max_rss_kb: Number(match(/Maximum resident set size \(kbytes\): (\d+)/)),
      elapsed_wall: match(/Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/),
      user_s: Number(match(/User time \(seconds\): ([\d.]+)/)),
      system_s: Number(match(/System time \(seconds\): ([\d.]+)/)),
      cpu_percent: match(/Percent of CPU this job got: (\d+%)/),
      exit_status: Number(match(/Exit status: (\d+)/)),
    };
  }
  return out;
}

function machineInfo(): Json {
  let nproc: number | null = null;
  try {
    nproc = Number(execSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    nproc = null;
  }
  return {
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    nproc,
    cpu_model: os.cpus()[0]?.model,
    total_mem_gb: Math.round(os.totalmem() / 1073741824),
  };
}

const f1 = (x: unknown) => (x == null || Number.isNaN(Number(x)) ? '–' : Number(x).toFixed(Number(x) >= 100 ? 0 : Number(x) >= 10 ? 1 : 2));
const ratio = (a: unknown, b: unknown) => (a == null || b == null || Number(b) === 0 ? '–' : `${(Number(a) / Number(b)).toFixed(2)}×`);

export function writeCollected(dir: string): void {
  const records = readJsonl(path.join(dir, 'interlock.jsonl'));
  const machine = machineInfo();
  const doc = {
    scenario: 'approval-round-trip/v1 (see ../shared/bench/SCENARIO.md)',
    engine: 'interlock',
    generated_at: new Date().toISOString(),
    machine,
    versions: records.find((r) => r['versions'])?.['versions'] ?? null,
    records,
    process_time_v: readTimes(dir, 'interlock-'),
  };
  fs.writeFileSync(path.join(dir, 'interlock.json'), JSON.stringify(doc, null, 2) + '\n');

  const peerDir = path.join(dir, 'peers');
  const peers: Json[] = fs.existsSync(peerDir)
    ? fs
        .readdirSync(peerDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(fs.readFileSync(path.join(peerDir, f), 'utf8')) as Json)
        .filter((d) => Array.isArray(d['records']))
    : [];
  const docs: Json[] = [doc, ...peers];

  const seqRows: string[] = [];
  const fanRows: string[] = [];
  const checks: string[] = [];
  for (const d of docs) {
    const times = d['process_time_v'] as Record<string, Json>;
    const timeFor = (needle: string) => {
      const key = Object.keys(times).find((k) => k.endsWith(needle));
      return key ? times[key] : null;
    };
    for (const r of d['records'] as Json[]) {
      const tag = `${r['engine']}/${r['variant']}`;
      const store = `${r['saver']}${r['durability'] && r['durability'] !== 'async' ? ` (durability=${r['durability']})` : ''}`;
      if (r['kind'] === 'sequential') {
        seqRows.push(
          `| ${tag} | ${store} | ${r['n']} | ${f1(r['threads_per_sec'])} | ${f1(r['suspend'].p50_ms)} / ${f1(r['suspend'].p99_ms)} | ${f1(r['resume'].p50_ms)} / ${f1(
            r['resume'].p99_ms,
          )} | ${f1(r['round_trip'].p50_ms)} / ${f1(r['round_trip'].p99_ms)} | ${r['peak_rss_mb']} |`,
        );
      }
      if (r['kind'] === 'fanout') {
        const st = (d['records'] as Json[]).find((x) => x['kind'] === 'storage' && x['section'] === 'fanout' && x['variant'] === r['variant']);
        const tv = timeFor(`${r['variant']}-fanout`) ?? timeFor('-fanout');
        const rows =
          st?.['checkpoint_rows_per_thread'] != null
            ? `${st['checkpoint_rows_per_thread']} ckpt + ${st['write_rows_per_thread']} writes`
            : st?.['tables'] != null
              ? `${st['rows_per_thread']} rows (${Object.entries(st['tables'] as Record<string, Json>)
                  .filter(([, t]) => t['rows_per_thread'] > 0)
                  .map(([name, t]) => `${t['rows_per_thread']} ${name}`)
                  .join(', ')})`
              : st?.['rows_per_thread'] != null
                ? `${st['rows_per_thread']} row (${st['row_writes_per_thread']} upserts)`
                : '–';
        fanRows.push(
          `| ${tag} | ${r['n']} | ${r['suspend_phase_ms']} | ${r['resume_phase_ms']} | ${r['rss_baseline_mb']} | ${r['heap_used_while_all_paused_after_gc_mb'] ?? '–'} | ${
            r['peak_rss_sampled_mb']
          } | ${tv ? Math.round(tv['max_rss_kb'] / 1024) : '–'} | ${st ? Number(st['db_bytes']).toLocaleString('en-US') : '–'} | ${
            st ? Number(st['bytes_per_thread']).toLocaleString('en-US') : '–'
          } | ${rows} |`,
        );
      }
      if (r['kind'] === 'correctness') {
        const verified = r['verified_from_checkpoint'] ?? r['verified_from_store'];
        checks.push(
          `| ${tag} | ${store} | ${r['section']} | ${r['n']} | ${r['tool_executions']} | ${r['each_thread_executed_once'] ?? '–'} | ${r['all_final_done']} | ${
            verified?.ok ?? '–'
          } | ${r['pass'] ? 'PASS' : 'FAIL'} |`,
        );
      }
      if (r['kind'] === 'error') checks.push(`| ${tag} | ${r['saver']} | ERROR in ${r['mode']} | | | | | | FAIL |`);
    }
  }

  const find = (d: Json | undefined, pred: (r: Json) => boolean) => (d?.['records'] as Json[] | undefined)?.find(pred);
  const seq = find(doc, (r) => r['kind'] === 'sequential' && r['saver'] === 'sqlite' && !r['durability']);
  const seqMem = find(doc, (r) => r['kind'] === 'sequential' && r['saver'] === 'memory');
  const seqFull = find(doc, (r) => r['kind'] === 'sequential' && r['durability']);
  const fan = find(doc, (r) => r['kind'] === 'fanout');
  const storage = find(doc, (r) => r['kind'] === 'storage');
  const commits = find(doc, (r) => r['kind'] === 'commits');
  const scaleDefault = find(doc, (r) => r['kind'] === 'scale');
  // A separate 100k run (SCALE_N=100000, too long for the 10-minute `pnpm bench`), when present.
  const scale100k = readJsonl(path.join(dir, 'interlock-scale-100k.jsonl')).find((r) => r['kind'] === 'scale');
  const scale = scale100k ?? scaleDefault;
  const fsyncBound = find(doc, (r) => r['kind'] === 'fsync_bound');
  const approval = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'approval');
  const shell = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'shell');
  const bus = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'event_bus');
  const fanTime = (doc.process_time_v as Record<string, Json>)['interlock-fanout'];

  const lg = peers.find((p) => p['engine'] === 'langgraph');
  const oa = peers.find((p) => p['engine'] === 'openai-agents');
  const peerSeq = (p: Json | undefined, saver: string) => find(p, (r) => r['kind'] === 'sequential' && r['saver'] === saver && (r['variant'] === 'lg-interrupt' || r['variant'] === 'needsApproval') && (r['durability'] ?? 'async') === 'async');
  const peerFan = (p: Json | undefined) => find(p, (r) => r['kind'] === 'fanout' && (r['variant'] === 'lg-interrupt' || r['variant'] === 'needsApproval'));
  const peerStorage = (p: Json | undefined) => find(p, (r) => r['kind'] === 'storage' && r['section'] === 'fanout' && (r['variant'] === 'lg-interrupt' || r['variant'] === 'needsApproval'));

  const ratioRows = [
    ['sequential SQLite threads/s', seq?.['threads_per_sec'], peerSeq(lg, 'sqlite')?.['threads_per_sec'], peerSeq(oa, 'sqlite')?.['threads_per_sec']],
    ['sequential SQLite round trip p50 ms', seq?.['round_trip']?.p50_ms, peerSeq(lg, 'sqlite')?.['round_trip']?.p50_ms, peerSeq(oa, 'sqlite')?.['round_trip']?.p50_ms],
    ['sequential memory threads/s', seqMem?.['threads_per_sec'], peerSeq(lg, 'memory')?.['threads_per_sec'], peerSeq(oa, 'memory')?.['threads_per_sec']],
    ['fan-out suspend phase ms', fan?.['suspend_phase_ms'], peerFan(lg)?.['suspend_phase_ms'], peerFan(oa)?.['suspend_phase_ms']],
    ['fan-out resume phase ms', fan?.['resume_phase_ms'], peerFan(lg)?.['resume_phase_ms'], peerFan(oa)?.['resume_phase_ms']],
    ['fan-out peak RSS MB (sampled)', fan?.['peak_rss_sampled_mb'], peerFan(lg)?.['peak_rss_sampled_mb'], peerFan(oa)?.['peak_rss_sampled_mb']],
    ['bytes per finished thread', storage?.['bytes_per_thread'], peerStorage(lg)?.['bytes_per_thread'], peerStorage(oa)?.['bytes_per_thread']],
  ].map(([what, il, l, o]) => `| ${what} | ${f1(il)} | ${f1(l)} | ${f1(o)} | ${ratio(il, l)} | ${ratio(il, o)} |`);

  const fsyncMs = fsyncBound?.['full']?.per_commit?.p50_ms as number | undefined;
  const commitsPerTrip = commits?.['write_commits_per_round_trip'] as number | undefined;
  const met = (ok: boolean | undefined) => (ok === undefined ? '–' : ok ? 'met' : '**not met**');
  const targets = [
    ['sequential SQLite ≥ 1,000 threads/s', `${f1(seq?.['threads_per_sec'])} threads/s`, met(seq ? seq['threads_per_sec'] >= 1000 : undefined)],
    ['≤ 3 commits per round trip', `${commitsPerTrip ?? '–'} write commits (${commits?.['transactions_per_round_trip'] ?? '–'} transactions, ${commits?.['statements_per_round_trip'] ?? '–'} statements)`, met(commitsPerTrip === undefined ? undefined : commitsPerTrip <= 3)],
    ['fan-out 1000: suspend ≤ 400 ms', `${fan?.['suspend_phase_ms'] ?? '–'} ms (N=${fan?.['n'] ?? '–'})`, met(fan ? fan['suspend_phase_ms'] <= 400 : undefined)],
    ['fan-out 1000: resume ≤ 600 ms', `${fan?.['resume_phase_ms'] ?? '–'} ms`, met(fan ? fan['resume_phase_ms'] <= 600 : undefined)],
    ['fan-out 1000: peak RSS ≤ 150 MB', `${fan?.['peak_rss_sampled_mb'] ?? '–'} MB sampled, ${fanTime ? Math.round(fanTime['max_rss_kb'] / 1024) : '–'} MB time -v`, met(fan ? fan['peak_rss_sampled_mb'] <= 150 : undefined)],
    ['storage ≤ 2,000 bytes per finished thread', `${storage?.['bytes_per_thread'] ?? '–'} bytes (payload ${storage?.['payload_bytes_per_thread'] ?? '–'})`, met(storage ? storage['bytes_per_thread'] <= 2000 : undefined)],
    [`100,000 suspended: RSS ≤ 200 MB`, `${scale?.['rss_all_waiting_after_gc_mb'] ?? '–'} MB with ${scale?.['n'] ?? '–'} suspended`, scale && scale['n'] >= 100000 ? met(scale['rss_all_waiting_after_gc_mb'] <= 200) : `not measured at 100k (N=${scale?.['n'] ?? '–'})`],
    [`100,000 suspended: answer-to-finish p99 ≤ 5 ms`, `p50 ${f1(scale?.['answer_to_finish']?.p50_ms)} / p99 ${f1(scale?.['answer_to_finish']?.p99_ms)} ms with ${scale?.['n'] ?? '–'} suspended`, met(scale ? scale['answer_to_finish'].p99_ms <= 5 : undefined)],
    ['decideApproval auto path p50 ≤ 2 µs', `${approval?.['decide_approval_auto']?.p50_us ?? '–'} µs (explain: ${approval?.['explain_auto']?.p50_us ?? '–'} µs; ask path ${approval?.['decide_approval_ask']?.p50_us ?? '–'} µs)`, met(approval ? approval['decide_approval_auto'].p50_us <= 2 : undefined)],
    ['shell classification p50 ≤ 100 µs', `typical ${shell?.['typical_all']?.p50_us ?? '–'} µs, adversarial ${shell?.['adversarial_all']?.p50_us ?? '–'} µs`, met(shell ? shell['typical_all'].p50_us <= 100 : undefined)],
  ].map((row) => `| ${row.join(' | ')} |`);

  const mirror = find(doc, (r) => r['kind'] === 'mirror_check');
  const md = [
    `Machine: ${machine['os']}, ${machine['nproc'] ?? machine['cpus']} cpus (${machine['cpu_model']}), ${machine['total_mem_gb']} GB, Node ${machine['node']}`,
    `Interlock generated ${doc.generated_at}; peers from results/peers (their run.sh, same machine). common.ts mirrors peers/lib/common.mjs: ${mirror?.['pass'] ?? 'not checked'}.`,
    '',
    'Sequential (a/d): latencies in ms, p50 / p99',
    '',
    '| engine/variant | store | N | threads/s | suspend p50/p99 | resume p50/p99 | round trip p50/p99 | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|',
    ...seqRows,
    '',
    'Fan-out (b/c): all N paused at once, then all approved',
    '',
    '| engine/variant | N | suspend phase ms | resume phase ms | RSS baseline MB | heap while all paused (after GC) MB | peak RSS sampled MB | max RSS (time -v) MB | SQLite bytes | bytes/thread | rows per thread |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...fanRows,
    '',
    'Ratios (Interlock / peer; < 1 is better for times, bytes and RSS, > 1 for threads/s)',
    '',
    '| figure | interlock | langgraph lg-interrupt | openai-agents | vs langgraph | vs openai-agents |',
    '|---|---|---|---|---|---|',
    ...ratioRows,
    '',
    'Commits and the fsync bound',
    '',
    `- Interlock commits ${commitsPerTrip ?? '–'} write transactions per round trip (${commits?.['transactions_per_round_trip'] ?? '–'} transactions in all, ${commits?.['statements_per_round_trip'] ?? '–'} statements); by store method: ${
      commits ? Object.entries(commits['by_store_method'] as Record<string, Json>).filter(([, v]) => v['write_commits'] > 0).map(([k, v]) => `${k} ${v['write_commits']}`).join(', ') : '–'
    }.`,
    `- The store's connection runs with PRAGMA synchronous = ${JSON.stringify(seq?.['synchronous_pragma'] ?? commits?.['synchronous_pragma'] ?? '–')} (2 = FULL, 1 = NORMAL).`,
    `- An fsync'd single-row commit (WAL, synchronous=FULL) on this disk: p50 ${fsyncBound?.['full']?.per_commit?.p50_ms ?? '–'} ms, mean ${fsyncBound?.['full']?.per_commit?.mean_ms ?? '–'} ms, ${fsyncBound?.['full']?.commits_per_sec ?? '–'} commits/s (NORMAL: ${fsyncBound?.['normal']?.commits_per_sec ?? '–'} commits/s).`,
    fsyncMs && commitsPerTrip
      ? `- fsync bound at today's ${commitsPerTrip} commits per round trip: ${f1(1000 / (commitsPerTrip * fsyncMs))} threads/s (p50 commit); at 3 commits: ${f1(1000 / (3 * fsyncMs))} threads/s. The synchronous=FULL row measured ${f1(seqFull?.['threads_per_sec'])} threads/s, ${f1(seqFull?.['round_trip']?.mean_ms)} ms mean round trip, of which ≈ ${f1(commitsPerTrip * (fsyncBound?.['full']?.per_commit?.mean_ms ?? fsyncMs))} ms are commits at the measured mean commit cost.`
      : '- fsync bound: not measured in this run.',
    '',
    'Many threads suspended at once (SQLite)',
    '',
    ...[scaleDefault, scale100k].filter((x): x is Json => x !== undefined).map(
      (scale) =>
        `- ${scale['n']} threads suspended (started in batches of ${scale['start_batch']}) in ${scale['suspend_all_ms']} ms (${scale['suspend_threads_per_sec']} threads/s); RSS after GC while all wait: ${scale['rss_all_waiting_after_gc_mb']} MB (baseline ${scale['rss_baseline_mb']} MB, heap ${scale['heap_used_all_waiting_after_gc_mb']} MB); ${scale['sampled_answers']} random answers, answer → finished p50 ${scale['answer_to_finish'].p50_ms} ms, p99 ${scale['answer_to_finish'].p99_ms} ms; database ${Number(scale['db_bytes_while_waiting']).toLocaleString('en-US')} bytes while waiting. At that suspend rate 100,000 threads would take ≈ ${Math.round(100000 / scale['suspend_threads_per_sec'])} s to start.${scale === scale100k ? ' (separate run: results/interlock-scale-100k.jsonl)' : ''}`,
    ),
    '',
    'Micro-benchmarks (per call, µs: p50 / p99)',
    '',
    approval
      ? `- decideApproval auto path (read tool, rule ${approval['decide_approval_auto'].rule}): ${approval['decide_approval_auto'].p50_us} / ${approval['decide_approval_auto'].p99_us}; ask path (${approval['decide_approval_ask'].rule}): ${approval['decide_approval_ask'].p50_us} / ${approval['decide_approval_ask'].p99_us}; interlock.explain auto: ${approval['explain_auto'].p50_us} / ${approval['explain_auto'].p99_us}, ask: ${approval['explain_ask'].p50_us} / ${approval['explain_ask'].p99_us}`
      : '- approval: not run',
    shell
      ? `- shell classification, typical commands: ${shell['typical_all'].p50_us} / ${shell['typical_all'].p99_us}; adversarial: ${shell['adversarial_all'].p50_us} / ${shell['adversarial_all'].p99_us}; explain(bash) typical ${shell['explain_bash_typical_all'].p50_us} / ${shell['explain_bash_typical_all'].p99_us}, adversarial ${shell['explain_bash_adversarial_all'].p50_us} / ${shell['explain_bash_adversarial_all'].p99_us} (per command in interlock.json)`
      : '- shell: not run',
    bus
      ? `- event bus (events$): ${Object.entries(bus)
          .filter(([, v]) => typeof v === 'object' && v !== null)
          .map(([k, v]) => `${k}: ${(v as Json)['events_per_sec'].toLocaleString('en-US')} events/s (${(v as Json)['us_per_event']} µs/event)`)
          .join('; ')}`
      : '- event bus: not run',
    '',
    'Targets (phase 2) and where Interlock stands',
    '',
    '| target | now | |',
    '|---|---|---|',
    ...targets,
    '',
    'Correctness (e)',
    '',
    '| engine/variant | store | section | N | tool executions | each once | all \'done\' | verified from store | result |',
    '|---|---|---|---|---|---|---|---|---|',
    ...checks,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'summary.md'), md);
  process.stdout.write(md);
}

if (process.argv[1]?.endsWith('collect.js')) writeCollected(path.resolve(process.argv[2] ?? 'results'));

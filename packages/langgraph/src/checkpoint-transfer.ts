import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph';

/**
 * A thread's checkpoints as text (F56): every checkpoint of the thread, oldest first, with
 * its pending writes (the interrupt among them), through the saver's own serializer. Stored
 * beside the decisions in Interlock's store, it lets any process resume the graph, whatever
 * checkpointer it has (one database holds both).
 */
export async function exportThread(saver: BaseCheckpointSaver, threadId: string): Promise<string> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
  tuples.reverse();
  const [type, bytes] = await saver.serde.dumpsTyped(tuples);
  return JSON.stringify({ type, data: Buffer.from(bytes).toString('base64') });
}

/** Writes exported checkpoints into `saver` (after which the graph resumes from them). */
export async function importThread(saver: BaseCheckpointSaver, exported: string): Promise<void> {
  const { type, data } = JSON.parse(exported) as { type: string; data: string };
  const tuples = (await saver.serde.loadsTyped(type, new Uint8Array(Buffer.from(data, 'base64')))) as CheckpointTuple[];
  for (const tuple of tuples) {
    const configurable = tuple.config.configurable ?? {};
    const parent = tuple.parentConfig?.configurable?.['checkpoint_id'] as string | undefined;
    const stored = await saver.put(
      {
        configurable: {
          thread_id: configurable['thread_id'] as string,
          checkpoint_ns: (configurable['checkpoint_ns'] as string | undefined) ?? '',
          ...(parent === undefined ? {} : { checkpoint_id: parent }),
        },
      },
      tuple.checkpoint,
      tuple.metadata ?? { source: 'update', step: -1, parents: {} },
      tuple.checkpoint.channel_versions,
    );
    const byTask = new Map<string, [string, unknown][]>();
    for (const [taskId, channel, value] of tuple.pendingWrites ?? []) {
      byTask.set(taskId, [...(byTask.get(taskId) ?? []), [channel, value]]);
    }
    for (const [taskId, writes] of byTask) await saver.putWrites(stored, writes, taskId);
  }
}

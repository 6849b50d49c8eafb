import { type ChangeEvent, type FormEvent, useEffect, useState } from 'react';
import { call, type OperationRequestBody, type OperationResponse } from '../api.ts';
import { Badge, ConfirmButton, ErrorBox, Field, PageTitle, ProgressBar, TableSection } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { parseParallelTexts } from '../lib/parallel-texts.ts';
import { useSession } from '../session.tsx';
import { ConfidenceCell, LossChart } from './translation-parts.tsx';

/** The training job as the page knows it: just its id and state right after starting, then what polling answers. */
type Training = OperationResponse<'getVec2vecTraining'>;
type TrainingJob = Pick<Training, 'job_id' | 'progress'> & { readonly status: string } & Partial<Omit<Training, 'status'>>;

export function TranslationsPage() {
  const session = useSession();
  const registry = useLoad((signal) => call((c) => c.GET('/v1/vec2vec/registry', { signal })), []);
  const remove = useAction(async (id: string) => {
    await call((c) => c.DELETE('/v1/vec2vec/{translation_id}', { params: { path: { translation_id: id } } }));
    registry.reload();
  });
  const available = useLoad((signal) => call((c) => c.GET('/v1/embeddings/models', { signal })).catch(() => ({ models: [] })), []);
  const models = [...new Set([...(available.data?.models ?? []).map((m) => m.id), ...(registry.data?.translations ?? []).flatMap((t) => [t.source_model, t.target_model])])].sort();
  const now = new Date();
  return (
    <>
      <PageTitle>Translations</PageTitle>
      <p className="muted">
        Learned maps between embedding models, so documents indexed with one model are searchable with another. “Fit” is the confidence: the share of a constant guess's error the map removes (bands: excellent ≥ 0.95, good 0.85–0.95, fair 0.70–0.85, low below). Beside it, how often
        the translated vector finds its own text first among held-out texts: a low fit with good retrieval still serves search well.
      </p>
      <section aria-labelledby="reg-h">
        <h2 id="reg-h">Registry</h2>
        <TableSection error={registry.error} actionError={{ error: remove.error, title: 'Delete failed' }} loading={registry.loading} rows={registry.data?.translations} empty={<p className="notice">No translations yet.</p>}>
          {(rows) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Source → target</th>
                  <th scope="col">Fit and retrieval</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Samples</th>
                  <th scope="col">Trained</th>
                  {session.can('admin') && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((t) => {
                  return (
                    <tr key={t.translation_id} data-translation={t.translation_id} data-builtin={t.builtin ? 'true' : 'false'}>
                      <td>
                        <code>{t.source_model}</code> → <code>{t.target_model}</code>
                      </td>
                      <td>
                        <ConfidenceCell confidence={t.confidence} metrics={t.metrics} builtin={t.builtin === true} />
                      </td>
                      <td>
                        {t.kind ?? '—'} {t.builtin && <Badge title="Ships with Atrium; train the pair to override it">shipped</Badge>}
                      </td>
                      <td>{t.sample_count}</td>
                      <td title={t.trained_at}>{relativeTime(t.trained_at, now)}</td>
                      {session.can('admin') && (
                        <td>
                          {!t.builtin && (
                          <ConfirmButton
                            label="Delete"
                            title="Delete this translation?"
                            body={
                              <p>
                                Queries will no longer bridge {t.source_model} → {t.target_model}. The reverse direction is kept.
                              </p>
                            }
                            confirmLabel="Delete translation"
                            onConfirm={() => void remove.run(t.translation_id)}
                          />
                          )}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </TableSection>
      </section>
      {session.can('admin') && <TrainForm models={models} onDone={registry.reload} />}
    </>
  );
}

function TrainForm({ models, onDone }: { models: string[]; onDone: () => void }) {
  const [source, setSource] = useState('');
  const [target, setTarget] = useState('');
  const [texts, setTexts] = useState('');
  const [fileNote, setFileNote] = useState('');
  const [epochs, setEpochs] = useState('');
  const [learningRate, setLearningRate] = useState('');
  const [useNeural, setUseNeural] = useState(false);
  const [minSamples, setMinSamples] = useState('');
  const [validationSplit, setValidationSplit] = useState('');
  const [job, setJob] = useState<TrainingJob | null>(null);
  /** Whether the running job fits a neural map (the checkbox may change meanwhile). */
  const [jobNeural, setJobNeural] = useState(false);
  const parsed = parseParallelTexts(texts);

  const start = useAction(async () => {
    const config: NonNullable<OperationRequestBody<'postVec2vecTrain'>['config']> = {
      use_neural: useNeural,
      ...(epochs ? { epochs: Number(epochs) } : {}),
      ...(learningRate ? { learning_rate: Number(learningRate) } : {}),
      ...(minSamples ? { min_samples: Number(minSamples) } : {}),
      ...(validationSplit ? { validation_split: Number(validationSplit) } : {}),
    };
    const res = await call((c) => c.POST('/v1/vec2vec/train', { body: { source_model: source.trim(), target_model: target.trim(), parallel_texts: parsed, config } }));
    setJobNeural(useNeural);
    setJob({ job_id: res.job_id, status: res.status, progress: 0 });
  });

  const poll = useAction(async (id: string) => {
    const j = await call((c) => c.GET('/v1/vec2vec/training/{job_id}', { params: { path: { job_id: id } } }));
    setJob(j);
    if (j.status === 'completed') onDone();
  });

  const jobId = job?.job_id;
  const finished = job ? ['completed', 'failed', 'cancelled'].includes(job.status) : true;
  // biome-ignore lint/correctness/useExhaustiveDependencies: poll the job until it finishes
  useEffect(() => {
    if (!jobId || finished) return;
    const id = window.setInterval(() => void poll.run(jobId), 700);
    return () => window.clearInterval(id);
  }, [jobId, finished]);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const content = await file.text();
    setTexts(content);
    setFileNote(`${file.name}: ${parseParallelTexts(content).length} texts`);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void start.run();
  };

  return (
    <section className="card" aria-labelledby="train-h">
      <h2 id="train-h">Train a translation</h2>
      <form onSubmit={submit}>
        <datalist id="models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <div className="grid">
          <Field label="Source model">{(id) => <input id={id} list="models" value={source} onChange={(e) => setSource(e.target.value)} required />}</Field>
          <Field label="Target model">{(id) => <input id={id} list="models" value={target} onChange={(e) => setTarget(e.target.value)} required />}</Field>
        </div>
        <Field label="Parallel texts file" hint="Plain text with one text per line, or a JSON array of strings. The server embeds each text with both models.">
          {(id, h) => <input id={id} type="file" accept=".txt,.json,.jsonl,text/plain,application/json" onChange={(e) => void onFile(e)} aria-describedby={h} />}
        </Field>
        {fileNote && <p className="muted small">{fileNote}</p>}
        <Field label={`Parallel texts (${parsed.length})`} hint="or paste them here, one per line">
          {(id, h) => <textarea id={id} rows={5} value={texts} onChange={(e) => setTexts(e.target.value)} aria-describedby={h} />}
        </Field>
        <fieldset>
          <legend>Configuration (empty fields use the server defaults)</legend>
          <div className="grid">
            <Field label="Epochs">{(id) => <input id={id} type="number" min={1} value={epochs} onChange={(e) => setEpochs(e.target.value)} />}</Field>
            <Field label="Learning rate">{(id) => <input id={id} type="number" step="any" min={0} value={learningRate} onChange={(e) => setLearningRate(e.target.value)} />}</Field>
            <Field label="Minimum samples">{(id) => <input id={id} type="number" min={1} value={minSamples} onChange={(e) => setMinSamples(e.target.value)} />}</Field>
            <Field label="Validation split">{(id) => <input id={id} type="number" step="0.01" min={0} max={0.9} value={validationSplit} onChange={(e) => setValidationSplit(e.target.value)} />}</Field>
          </div>
          <label className="check">
            <input type="checkbox" checked={useNeural} onChange={(e) => setUseNeural(e.target.checked)} /> Neural map (unchecked: linear)
          </label>
        </fieldset>
        <ErrorBox error={start.error} />
        <button type="submit" disabled={start.pending || !finished || parsed.length === 0}>
          {start.pending ? 'Starting…' : 'Start training'}
        </button>
      </form>
      {job && (
        <div className="job" aria-live="polite">
          <h3>
            Job <code>{job.job_id}</code>: {job.status}
            {job.stage && job.status !== 'completed' ? ` (${job.stage})` : ''}
          </h3>
          <ProgressBar value={job.status === 'completed' ? 1 : job.progress} label="Training progress" />
          {(job.stage === 'training' || job.status === 'completed') && <LossChart losses={job.epoch_losses ?? []} neural={jobNeural} />}
          {job.status === 'failed' && (
            <div className="error" role="alert">
              Training failed{job.error ? `: ${job.error}` : ''}
            </div>
          )}
          {job.status === 'completed' && (
            <p>
              Done. Confidence {typeof job.confidence === 'number' ? job.confidence.toFixed(3) : '—'}, accuracy {typeof job.accuracy === 'number' ? job.accuracy.toFixed(3) : '—'}, cycle loss {typeof job.cycle_loss === 'number' ? job.cycle_loss.toFixed(4) : '—'}.
            </p>
          )}
          <ErrorBox error={poll.error} title="Could not read the job" />
        </div>
      )}
    </section>
  );
}

// Parts of the Translations page: the confidence cell (band meaning plus the retrieval number) and the loss chart.
import { LineChart } from '../components/line-chart.tsx';
import { Badge } from '../components/ui.tsx';
import { confidenceView } from '../lib/confidence.ts';

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Confidence with its band's meaning on hover, and held-out retrieval (top-1 among N) beside it: both numbers. */
export function ConfidenceCell({ confidence, metrics, builtin }: { confidence: number; metrics: Record<string, unknown> | undefined; builtin: boolean }) {
  const top1 = num(metrics?.top1_accuracy);
  const candidates = num(metrics?.candidates);
  const view = confidenceView(confidence, top1, builtin);
  return (
    <div data-testid="confidence" data-band={view.band} data-tone={view.tone}>
      <span title={`Confidence ${confidence.toFixed(3)}, band “${view.band}”: ${view.meaning}.`}>
        Fit {confidence.toFixed(2)} <Badge tone={view.tone} title={`${view.meaning} (technical term: confidence band “${view.band}”)`}>{view.label}</Badge>
      </span>
      {top1 !== null && (
        <div className="muted small" title="top-1 accuracy on held-out pairs: how often the translated vector's nearest neighbour is its own text">
          Finds the right text first {(top1 * 100).toFixed(0)} % of the time{candidates !== null ? ` among ${candidates.toLocaleString('en-US')}` : ''}
        </div>
      )}
    </div>
  );
}

/** The loss of each epoch of a neural training, as it goes; a linear map has no epochs and says so. */
export function LossChart({ losses, neural }: { losses: readonly { epoch: number; loss: number }[]; neural: boolean }) {
  if (!neural) return <p className="muted small">A linear map is solved in one step: there are no epochs to chart.</p>;
  return (
    <LineChart
      id="loss-chart"
      title="Training loss per epoch"
      note="Loss on the selection split (texts the fit does not train on): lower is better. Training stops early when it stops improving."
      points={losses.map((l) => ({ x: l.epoch, y: l.loss }))}
      xLabel="Epoch"
      yLabel="Loss (mean squared error)"
      formatX={(x) => String(Math.round(x))}
      formatY={(y) => y.toFixed(3)}
      integerX
    />
  );
}

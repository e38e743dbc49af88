import { useEffect, useState } from 'preact/hooks';
import { admin } from './api.ts';
import { ErrorNote, When } from './ui.tsx';

interface ClockView {
  now: string;
  movable: boolean;
}

interface FaultRule {
  [field: string]: unknown;
}

/** The server clock (moved forward, or back by a reset) and the fault rules. */
export function TimeScreen() {
  const [clock, setClock] = useState<ClockView | null>(null);
  const [amount, setAmount] = useState(1);
  const [unit, setUnit] = useState(3600);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const act = async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void act(async () => setClock((await admin<ClockView>('GET', '/clock')).data)), []);
  return (
    <section aria-labelledby="time-title">
      <h1 id="time-title">Time and faults</h1>
      {error ? <ErrorNote error={error} /> : null}
      <h2>Server clock</h2>
      <p>
        Server time: <output id="server-time">{clock ? <When at={clock.now} /> : '…'}</output>
        {clock && !clock.movable && ' (fixed: this server was started with a clock that cannot move)'}
      </p>
      <form onSubmit={(e) => (e.preventDefault(), void act(async () => setClock((await admin<ClockView>('POST', '/clock', { advanceSeconds: amount * unit })).data)))}>
        <label>Move forward by <input type="number" min={0} value={amount} onInput={(e) => setAmount(Number(e.currentTarget.value))} /></label>
        <label class="sr-only" for="unit">Unit</label>
        <select id="unit" value={unit} onChange={(e) => setUnit(Number(e.currentTarget.value))}>
          <option value={60}>minutes</option>
          <option value={3600}>hours</option>
          <option value={86400}>days</option>
        </select>
        <button type="submit">Move clock</button>
      </form>
      <h2>Reset</h2>
      <p>Back to the data, keys, clock and fault rules the server started with.</p>
      <button type="button" onClick={() => void act(async () => {
        const { data } = await admin<{ now: string }>('POST', '/reset');
        setClock({ now: data.now, movable: clock?.movable ?? true });
        setStatus('Reset done.');
      })}>Reset the sandbox</button>
      <p role="status">{status}</p>
      <Faults />
    </section>
  );
}

/** Fault rules, when the server was started with --faults. */
function Faults() {
  const [rules, setRules] = useState<FaultRule[] | null>(null);
  const [off, setOff] = useState(false);
  const [text, setText] = useState('{"fault": "internal_error", "path": "/v1/people", "times": 1}');
  const [error, setError] = useState<unknown>(null);
  const refresh = () => admin<FaultRule[]>('GET', '/faults').then((r) => setRules(r.data), () => setOff(true));
  useEffect(() => void refresh(), []);
  if (off) return <p>Fault rules: off (start the server with <code>--faults</code>).</p>;
  return (
    <>
      <h2>Fault rules</h2>
      {error ? <ErrorNote error={error} /> : null}
      <ul aria-label="Fault rules">{(rules ?? []).map((rule) => <li><code>{JSON.stringify(rule)}</code></li>)}</ul>
      <form onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        Promise.resolve().then(() => admin('POST', '/faults', JSON.parse(text))).then(refresh, setError);
      }}>
        <label>Rule (JSON) <textarea rows={3} cols={60} value={text} onInput={(e) => setText(e.currentTarget.value)} /></label>
        <button type="submit">Add rule</button>
        <button type="button" onClick={() => void admin('DELETE', '/faults').then(refresh, setError)}>Clear rules</button>
      </form>
    </>
  );
}

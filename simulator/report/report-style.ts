// The report's look, inline in its one HTML file: no font, script or image
// is fetched. Slot colours differ in lightness too, and stranded slots are
// hatched, so the states read in grey print and to colour-blind eyes.
export const REPORT_CSS = `
:root { --bound: #4c6fa8; --placed: #f28e2b; --free: #ffffff; --stranded: #d62728; --line: #c8c8c8; --muted: #666; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; padding: 16px 24px 40px; color: #222; background: #fafafa; line-height: 1.4; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
p { margin: 4px 0; }
.muted { color: var(--muted); }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.legend { display: flex; flex-wrap: wrap; gap: 16px; margin: 10px 0; font-size: 13px; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.slot { display: inline-block; width: 14px; height: 14px; border: 1px solid #555; border-radius: 2px; margin-right: 2px; vertical-align: middle; }
.slot.bound { background: var(--bound); }
.slot.placed { background: var(--placed); }
.slot.free { background: var(--free); border-color: #999; }
.slot.stranded { background: repeating-linear-gradient(45deg, var(--stranded) 0 3px, #fff 3px 6px); border-color: var(--stranded); }
details.group { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
details.group > summary { cursor: pointer; padding: 8px 12px; font-size: 14px; }
details.group > summary .counts { color: var(--muted); margin-left: 8px; }
.grid { display: flex; flex-wrap: wrap; gap: 8px; padding: 4px 12px 12px; }
.node { border: 1px solid #ddd; border-radius: 4px; padding: 6px 8px; background: #fff; min-width: 150px; font-size: 12px; }
.node.changed { border-color: var(--placed); box-shadow: 0 0 0 1px var(--placed); }
.node .name { font-weight: 600; word-break: break-all; }
.node .type { color: var(--muted); font-weight: normal; }
.node .row { white-space: nowrap; margin-top: 3px; }
.node .when { display: inline-block; width: 42px; color: var(--muted); }
.node .note { color: var(--muted); margin-top: 3px; }
.state { font-weight: 600; }
.state.placed { color: #b35c00; }
.state.unschedulable { color: var(--stranded); }
.state.undecided, .state.gated, .state.other-scheduler { color: var(--muted); }
ol.why { margin: 4px 0 0; padding-left: 20px; }
ol.why ul { margin: 0; padding-left: 16px; }
pre { margin: 4px 0 0; font-size: 12px; white-space: pre-wrap; }
ul.notes { font-size: 13px; }
`;

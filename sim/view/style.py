"""The pages' one stylesheet, inlined into every page."""

CSS = """
:root { --ink: #1f2933; --muted: #6b7785; --line: #d9dee5; --ok: #2f855a; --bad: #c53030; --warn: #b7791f;
        --accent: #3b5bdb; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
body { margin: 0; background: #f6f7f9; font-size: 14px; line-height: 1.4; }
main { padding: 12px 18px 40px; max-width: 1500px; margin: 0 auto; }
h1 { font-size: 20px; margin: 4px 0; } h2 { font-size: 16px; margin: 0 0 8px; } h3 { font-size: 13px; margin: 8px 0 4px; }
a { color: var(--accent); }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin: 10px 0; }
.page-head { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.facts, .muted { color: var(--muted); margin: 2px 0; }
.nav a { margin-right: 10px; font-size: 13px; }
.why { font-size: 12px; background: #e7ecfb; color: var(--accent); border-radius: 10px; padding: 1px 8px; margin-left: 4px;
       vertical-align: middle; font-weight: normal; }
.count { font-weight: 600; }
.termination { margin: 6px 0; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; background: var(--warn);
         font-weight: 600; }
.badge.reason-converged { background: var(--ok); } .badge.reason-error { background: var(--bad); }
.chips { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
.chip { background: #eef1f5; border-radius: 6px; padding: 1px 7px; font-size: 12px; }
.columns { display: grid; grid-template-columns: minmax(0, 11fr) minmax(0, 9fr); gap: 14px; align-items: start; }
.col-left section { position: sticky; top: 6px; max-height: calc(100vh - 24px); overflow-y: auto; }
@media (max-width: 1000px) { .columns { grid-template-columns: 1fr; }
  .col-left section { position: static; max-height: none; } }
.round { border-top: 1px solid var(--line); padding-top: 4px; margin-top: 6px; }
.turn { border-radius: 8px; padding: 6px 10px; margin: 5px 0; max-width: 88%; border: 1px solid rgba(0,0,0,.06); }
.turn-left { margin-right: auto; } .turn-right { margin-left: auto; }
.turn header { font-size: 12px; } .turn p { margin: 3px 0 0; white-space: pre-wrap; }
.speaker { font-weight: 700; margin-right: 6px; }
.tag { font-size: 11px; background: rgba(255,255,255,.7); border: 1px solid rgba(0,0,0,.1); border-radius: 8px;
       padding: 0 6px; margin-right: 3px; color: var(--muted); }
.note { font-size: 12px; border-left: 3px solid var(--accent); background: #f3f5fd; padding: 4px 8px; margin: 5px 0; }
.note-warn, .note-reject { border-left-color: var(--bad); background: #fdf2f2; }
.note-ok { border-left-color: var(--ok); background: #f0faf4; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 14px; }
figure.chart { margin: 0; } figcaption { font-size: 12px; color: var(--muted); } figcaption b { color: var(--ink); }
svg { max-width: 100%; height: auto; }
svg text { font-size: 10px; fill: var(--muted); } svg .tick { font-size: 9px; }
.axis, .lane { stroke: var(--line); } .round-sep { stroke: #b8c0cc; stroke-dasharray: 2 2; }
.line { fill: none; stroke: var(--accent); stroke-width: 1.6; } .dot { fill: var(--accent); }
.cell-yes { fill: var(--accent); } .cell-bad { color: var(--bad); font-weight: 700; }
.cell-no { fill: #fff; stroke: #9aa5b1; } .cell-na { fill: #fff; stroke: #d0d5dc; stroke-dasharray: 2 2; }
.bar { fill: #7b93db; } .bar.bad { fill: var(--bad); } .bar.ok { fill: var(--ok); } .bar.wall { fill: #c3ccd8; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f0f2f5; }
td.match { background: #e6f4ea; } td.mismatch { background: #fde8e8; } td.missing { color: var(--muted); }
.topology .node rect { fill: #e7ecfb; stroke: #7b93db; } .topology .node text { fill: var(--ink); font-size: 11px; }
.topology .looped rect { fill: #fff4e0; stroke: var(--warn); } .topology .unvisited rect { fill: #fff; stroke: #c3ccd8;
  stroke-dasharray: 3 2; } .topology .unvisited text { fill: var(--muted); }
.topology .terminal rect { fill: #eef1f5; stroke: #9aa5b1; }
.edge { stroke: #8792a2; stroke-width: 1.2; } .edge.conditional { stroke-dasharray: 4 3; }
.loop { fill: none; stroke: var(--warn); stroke-width: 1.6; }
.loop-label { fill: var(--warn); font-weight: 700; font-size: 11px; }
.arrowhead { fill: #8792a2; } .arrowhead-loop { fill: var(--warn); }
.loop-mark { color: var(--warn); font-weight: 700; }
ol.sequence { display: flex; flex-wrap: wrap; gap: 3px; padding-left: 0; list-style: none; font-size: 11px; }
ol.sequence li { background: #eef1f5; border-radius: 4px; padding: 0 5px; } ol.sequence li.again { background: #fff4e0; }
.legend { display: flex; flex-wrap: wrap; gap: 10px; font-size: 12px; color: var(--muted); margin: 4px 0; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin-right: 4px; vertical-align: -1px; }
.argument-graph line.supports, .argument-graph path.supports { stroke: var(--ok); }
.argument-graph path { fill: none; stroke-width: 1.1; opacity: .6; } .argument-graph path.opposes { stroke: var(--bad); }
.tree, .tree ul { list-style: none; padding-left: 16px; margin: 2px 0; } .tree li { margin: 2px 0; }
.status { font-size: 11px; border-radius: 8px; padding: 0 6px; margin-right: 4px; color: #fff; background: #9aa5b1; }
.status-validated { background: var(--ok); } .status-invalidated { background: var(--bad); }
.status-unproven { background: var(--warn); }
.traceback, pre { white-space: pre-wrap; font-size: 12px; background: #f8f9fb; padding: 8px; border-radius: 6px;
                  overflow-x: auto; }
#error { border-color: var(--bad); } #error h2 { color: var(--bad); }
.section-error { border: 1px dashed var(--bad); padding: 6px; border-radius: 6px; }
.artifact summary, details summary { cursor: pointer; color: var(--accent); }
"""

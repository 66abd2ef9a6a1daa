"""Explore any model in Jupyter: ``critlab.explore(model, **fixed)``.

One control per declared parameter of the model (:mod:`critlab.analysis.views.controls`),
grouped and labelled from the declarations; the exact answer (outcome bars in the style's
colours, the main distribution, the outcomes and metrics as percentages) drawn again at
every change; a **simulate** button that simulates the current point, with a progress
bar, and validates it against the exact answer; a point the rules refuse shown as its
one-line reason. It reads the Model protocol alone (:mod:`critlab.analysis.model`), so a
built-in system, a spec, a designer's mechanic, a fight and an encounter are explored by
the same code.

A redraw costs the model's exact answer and about 30-70 ms of drawing: a built-in system's
is well within 0.1 s (``make bench``), an encounter's is its chain's (the example party
against its ogre acting first about 0.1 s, with ``rolled`` initiative some 30 times that).

The explorer is driven without a browser as well: ``.controls`` (name -> widget),
``.result`` (the exact answer at the current point, ``None`` where refused, then
``.refusal`` says why), ``.point`` and ``.spec()``:

>>> ex = explore("crit-range", attack_bonus=5, evasion=15)
>>> sorted(ex.controls)[:3]                     # the fixed parameters have no control
['bonus', 'condition', 'crit_dice']
>>> ex.controls["crit_range"].value = 3
>>> ex.result.outcomes["crit"], ex.spec().crit_range
(0.15, 3)
>>> ex.controls["critfail_range"].value = 19    # 3 + 19 naturals out of 20
>>> ex.result is None, ex.refusal
(True, 'parameter crit_range = 3: crit_range + critfail_range must be at most 20 (critfail_range = 19)')
"""

from __future__ import annotations

import html
from typing import Any

from critlab.analysis.encounter.model import as_model
from critlab.analysis.model import INTEGER
from critlab.analysis.run import RunOptions
from critlab.analysis.spec import SpecError
from critlab.analysis.views.controls import Control, control, grouped
from critlab.analysis.views.explore_figure import Drawing, answer_table, refusal_html

# The simulate button's defaults: a confirmation in about a second for a built-in system.
TRIALS = 200_000
SEED = 1


def _needs_widgets() -> None:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        raise ImportError("critlab.explore needs ipywidgets: pip install 'critlab[notebooks]'") from None


class Explorer:
    """The controls, the drawing and the simulation of one model (see the module
    docstring); shown in a notebook as its widget."""

    def __init__(self, model: Any, fixed: dict[str, Any], *, trials: int = TRIALS, seed: int = SEED) -> None:
        import ipywidgets as w

        self.base = model
        # a range given for an integer is its slider's span, not a value held fixed
        spans = {k: v for k, v in fixed.items() if isinstance(v, range)}
        self.fixed = {k: v for k, v in fixed.items() if k not in spans}
        for name, value in self.fixed.items():  # a bad fixed value: its one line, at once
            model.parameter(name).check(value)
        for name in spans:
            if model.parameter(name).kind != INTEGER:
                raise SpecError(name, spans[name], "a range is the span of an integer's slider")
        start = self.base.point
        self.controls_of: dict[str, Control] = {}
        # required parameters not given: their controls start where their kinds allow, and
        # they stay unset (None) while the point does not use them and no one moved them
        self._unset: set[str] = set()
        for p in self.base.parameters:
            if p.name in self.fixed:
                continue
            value = start.get(p.name)
            if value is None and not p.optional:
                self._unset.add(p.name)
                value = p.start
            self.controls_of[p.name] = control(p, value, spans.get(p.name))
        self.controls = {name: c.widget for name, c in self.controls_of.items()}
        self.drawing = Drawing()
        self.view = w.Output()
        self.answer = w.HTML()
        self.message = w.HTML()
        self.button = w.Button(
            description="simulate", icon="play", tooltip="simulate and validate this point"
        )
        self.trials = w.BoundedIntText(
            value=trials, min=1, max=10**12, description="trials", style={"description_width": "initial"}
        )
        self.seed = w.BoundedIntText(
            value=seed, min=0, max=2**63 - 1, description="seed", style={"description_width": "initial"}
        )
        self.checked = w.Output()
        self.model: Any = None
        self.result: Any = None
        self.refusal: str | None = None
        self.validation: Any = None
        self.button.on_click(lambda _: self.simulate())
        for c in self.controls_of.values():
            c.widget.observe(self._changed, names="value")
            if c.given is not None:
                c.given.observe(self._changed, names="value")
        title = w.HTML(f"<b>{html.escape(self.base.title or self.base.name)}</b>")
        self.widget = w.VBox(
            [
                title,
                grouped(list(self.controls_of.values())),
                self.message,
                self.view,
                self.answer,
                w.HBox([self.button, self.trials, self.seed]),
                self.checked,
            ]
        )
        self.refresh()

    # -- the point -------------------------------------------------------------------------
    @property
    def point(self) -> dict[str, Any]:
        """Every parameter's value: the controls' and the fixed ones (``None`` for a
        required one never given nor moved, while the point does not use it)."""
        values = {**{name: c.value() for name, c in self.controls_of.items()}, **self.fixed}
        if self._unset:
            try:
                unused = self.base.at(**values).unused()
            except ValueError:
                unused = frozenset()
            values.update({name: None for name in self._unset & unused})
        return values

    def spec(self) -> Any:
        """What the current point describes, as the engine's own functions take it (a
        spec, an encounter); the refusal's SpecError where the rules refuse the point."""
        return self.base.at(**self.point).spec()

    def _changed(self, change: Any = None) -> None:
        owner = getattr(change, "owner", None) if change is not None else None
        self._unset.difference_update(n for n, c in self.controls_of.items() if owner in (c.widget, c.given))
        self.refresh()

    def refresh(self) -> None:
        """Compute the exact answer at the controls' point and draw it, or show why the
        rules refuse the point (the figure then keeps the last answer, greyed)."""
        try:
            model = self.base.at(**self.point)
            result = model.exact()
        except ValueError as exc:  # SpecError and every rule's refusal: one line
            self.model, self.result, self.refusal = None, None, str(exc).splitlines()[0]
            self.message.value = refusal_html(self.refusal)
            self.view.layout.opacity = "0.35"
            return
        self.model, self.result, self.refusal = model, result, None
        self._mark_unused(model)
        self.view.outputs = (self.drawing.draw(model, result),)
        self.view.layout.opacity = "1"
        self.answer.value = answer_table(result)
        self.message.value = ""

    def _mark_unused(self, model: Any) -> None:
        unused = model.unused()
        for name, c in self.controls_of.items():
            why = ""
            if name in unused and c.parameter.when:
                why = "used when " + " and ".join(
                    f"{k} is {'/'.join(map(str, v))}" for k, v in c.parameter.when.items()
                )
            c.set_used(name not in unused, why or "another mode's")

    # -- the simulation ----------------------------------------------------------------------
    def simulate(self, trials: int | None = None, seed: int | None = None) -> Any:
        """Simulate the current point (``trials`` and ``seed``: the boxes' by default) with
        a progress bar, validate it against the exact answer and show the verdict; the
        :class:`~critlab.analysis.validate.Validation`, or ``None`` where refused."""
        from critlab.analysis.validate import validate

        if self.model is None:
            self.checked.outputs = (_html_output(refusal_html(self.refusal or "")),)
            return None
        trials = self.trials.value if trials is None else trials
        seed = self.seed.value if seed is None else seed
        self.button.disabled, self.button.description = True, "simulating…"
        self.checked.outputs = ()
        try:
            with self.checked:  # the progress bar shows here, in a notebook
                sim = self.model.simulate(RunOptions(trials=trials, seed=seed, progress=True))
            self.validation = validate(self.model.exact(), sim)
        except ValueError as exc:
            self.checked.outputs = (_html_output(refusal_html(str(exc).splitlines()[0])),)
            return None
        finally:
            self.button.disabled, self.button.description = False, "simulate"
        head = f"<p>{sim.trials:,} trials at seed {sim.seed}</p>"
        self.checked.outputs = (_html_output(head + self.validation._repr_html_()),)
        return self.validation

    # -- shown in a notebook -----------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        state = self.refusal or ", ".join(f"{k} {v:.4g}" for k, v in self.result.outcomes.items())
        return f"<explorer of {self.base.name}: {state}>"


def _html_output(text: str) -> dict[str, Any]:
    return {"output_type": "display_data", "data": {"text/html": text, "text/plain": text}, "metadata": {}}


def explore(model: Any, /, **fixed: Any) -> Explorer:
    """An explorer of ``model``: a system's name or spec, a mechanic (its reference
    ``"file.py:rule"`` or the mechanic itself), a fight (``critlab.fight(...)``'s result,
    or a :class:`~critlab.analysis.fight.model.FightModel`), an encounter (a ``.toml``
    file or an :class:`~critlab.analysis.encounter.declare.Encounter`) or any
    :class:`~critlab.analysis.model.Model`.

    Parameters
    ----------
    model
        What to explore; it starts at its point (a spec's values, an encounter's
        settings, else the declared defaults, a required parameter at a value its kind
        allows).
    **fixed
        Parameters held at these values, without a control (dotted names such as
        ``**{"ogre.hp": 30}`` for an encounter's settings); a value the rules refuse is
        its one-line SpecError here. A ``range`` for an integer parameter is its
        slider's span instead (``evasion=range(1, 36)``); without one, a slider over a
        declared range wider than 200 values spans 50 either side of its start.

    Returns
    -------
    Explorer
        Shown as its widgets in a notebook; ``.controls``, ``.result``, ``.refusal``,
        ``.point``, ``.spec()`` and ``.simulate()`` drive it from code.
    """
    _needs_widgets()
    return Explorer(as_model(model), fixed)


__all__ = ["Explorer", "explore"]

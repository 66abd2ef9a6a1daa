"""Kernel for ``crits-cats`` (criticals and catastrophes).

Each trial rolls the d20s one at a time, exactly as a table would: the initiator's and
the responder's in a Versus Challenge (then the damage or backlash dice its result calls
for), the roller's in a 21 Challenge, or the caster's and then each resister's in turn
for a spell. :func:`trial` is one trial (a label and its values); :func:`block` tallies
``n`` of them.
"""

from __future__ import annotations

from collections import namedtuple

from critlab.kernels.bins import add_counter, add_label, add_value
from critlab.kernels.dice import local_scratch, roll_floored
from critlab.kernels.jit import kernel
from critlab.kernels.rng import die, local_state
from critlab.kernels.vocab import vocabulary, words

Outcome = vocabulary(
    "Outcome",
    "major_catastrophe minor_catastrophe failure success minor_critical major_critical",
    module=__name__,
)
Mode = vocabulary("Mode", "versus challenge spell", module=__name__)
Hist = vocabulary("Hist", "damage backlash resister", module=__name__)
# any_<class>: casts where at least one resister got that class, in Outcome's order, so
# that ANY + class is its counter
Counter = vocabulary(
    "Counter",
    "damage_sum backlash_sum down " + " ".join(f"any_{w}" for w in words(Outcome)) + " affected",
    module=__name__,
)
ANY = int(Counter.ANY_MAJOR_CATASTROPHE)
N_CLASSES = len(Outcome)

Args = namedtuple(
    "Args",
    "mode crit_lo cat_hi skill target opposing_skill transfer ties_initiator major_margin combat "
    "dmg_terms dmg_const dmg_max protection bl_terms bl_const attacker_protection minor_hit "
    "resisters resistance",
)
"""The kernel's arguments, built by :mod:`critlab.analysis.systems.crits_cats` from a spec:
``crit_lo`` = 21 − crit_range, ``cat_hi`` = cat_range, ``dmg_max`` the damage maximum
floored at 0 (what a minor critical deals)."""


@kernel(inline="always")
def natural_kind(natural, crit_lo, cat_hi):
    """+1 for a natural in the crit range (>= ``crit_lo``), −1 in the catastrophe range
    (<= ``cat_hi``), else 0."""
    if natural >= crit_lo:
        return 1
    if natural <= cat_hi:
        return -1
    return 0


@kernel(inline="always")
def classify(kind, margin, major_margin, succeeded):
    """The class of a roll: a critical or catastrophe by ``kind`` (major by ``margin``),
    otherwise success or failure as ``succeeded`` says."""
    if kind > 0:
        return Outcome.MAJOR_CRITICAL if margin >= major_margin else Outcome.MINOR_CRITICAL
    if kind < 0:
        return Outcome.MAJOR_CATASTROPHE if -margin >= major_margin else Outcome.MINOR_CATASTROPHE
    return Outcome.SUCCESS if succeeded else Outcome.FAILURE


@kernel(inline="always")
def versus_label(initiator, responder, a):
    """The initiator's class for a pair of naturals."""
    kind = natural_kind(initiator, a.crit_lo, a.cat_hi)
    if a.transfer:
        # The responder's crit is the initiator's catastrophe and vice versa;
        # opposite pulls cancel, equal ones stand.
        kind -= natural_kind(responder, a.crit_lo, a.cat_hi)
        kind = 1 if kind > 0 else (-1 if kind < 0 else 0)
    margin = initiator + a.skill - responder - a.opposing_skill
    return classify(kind, margin, a.major_margin, margin > 0 or (margin == 0 and a.ties_initiator))


@kernel(inline="always")
def challenge_label(natural, bonus, against, a):
    """The class of a challenge roll ``natural + bonus`` against the total ``against``."""
    margin = natural + bonus - against
    return classify(natural_kind(natural, a.crit_lo, a.cat_hi), margin, a.major_margin, margin >= 0)


@kernel(inline="always")
def attack(s, a, label, scratch):
    """What a versus attack of class ``label`` deals: ``(damage, backlash, down)``."""
    damage = 0
    backlash = 0
    down = 0
    if label == Outcome.SUCCESS:
        damage = max(0, roll_floored(s, a.dmg_terms, a.dmg_const, scratch) - a.protection)
    elif label == Outcome.MINOR_CRITICAL:
        damage = a.dmg_max
    elif label == Outcome.MAJOR_CRITICAL:
        damage = 2 * a.dmg_max
    elif label == Outcome.MINOR_CATASTROPHE:
        if a.minor_hit:
            backlash = max(0, roll_floored(s, a.bl_terms, a.bl_const, scratch) - a.attacker_protection)
        else:
            down = 1
    elif label == Outcome.MAJOR_CATASTROPHE:
        down = 1
        backlash = roll_floored(s, a.bl_terms, a.bl_const, scratch)
    return damage, backlash, down


@kernel(inline="always")
def trial(s, a, scratch):
    """One trial: ``(label, damage, backlash, down, resister, seen, affected)``.

    ``damage``, ``backlash`` and ``down`` are a versus attack's (0 without one);
    ``resister`` is the first resister's class (−1 outside a spell), bit ``k`` of
    ``seen`` is set when some resister got class ``k``, and ``affected`` counts the
    resisters affected.
    """
    damage = 0
    backlash = 0
    down = 0
    resister = -1
    seen = 0
    affected = 0
    if a.mode == Mode.VERSUS:
        initiator = die(s, 20)
        responder = die(s, 20)
        label = versus_label(initiator, responder, a)
        if a.combat:
            damage, backlash, down = attack(s, a, label, scratch)
    elif a.mode == Mode.CHALLENGE:
        label = challenge_label(die(s, 20), a.skill, a.target, a)
    else:
        natural = die(s, 20)
        label = challenge_label(natural, a.skill, a.target, a)
        caster_total = natural + a.skill
        cast = label >= Outcome.SUCCESS
        for i in range(a.resisters):
            r_label = challenge_label(die(s, 20), a.resistance, caster_total, a)
            if i == 0:
                resister = r_label
            seen |= 1 << r_label
            if cast and r_label < Outcome.SUCCESS:
                affected += 1
    return label, damage, backlash, down, resister, seen, affected


@kernel
def block(s, n, out, layout, a):
    """Tally ``n`` trials into ``out`` (see :mod:`critlab.kernels.bins` for the layout)."""
    s = local_state(s)  # the stream in registers: see critlab.kernels.rng.local_state
    scratch = local_scratch()
    for _ in range(n):
        label, damage, backlash, down, resister, seen, affected = trial(s, a, scratch)
        add_label(out, label)
        if a.combat:
            add_value(out, layout, Hist.DAMAGE, damage)
            add_value(out, layout, Hist.BACKLASH, backlash)
            add_counter(out, layout, Counter.DAMAGE_SUM, damage)
            add_counter(out, layout, Counter.BACKLASH_SUM, backlash)
            add_counter(out, layout, Counter.DOWN, down)
        elif a.mode == Mode.SPELL:
            add_value(out, layout, Hist.RESISTER, resister)
            for c in range(N_CLASSES):
                if seen & (1 << c):
                    add_counter(out, layout, ANY + c, 1)
            add_counter(out, layout, Counter.AFFECTED, affected)

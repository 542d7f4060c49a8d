"""What a function does with a word its model, vocabulary, reference index or encoder lacks: ``on_missing``.

One policy, named once (no silent NaN: ``docs/architecture.md``, "Conventions"):

- ``"error"`` (every function's default): refuse, naming the words
  (:class:`~tealeaves.errors.InputError`);
- ``"skip"``: leave the word out (of its topic, its document or the ids asked for);
- ``"zero"``: keep it, with value 0 wherever it takes part.

A function accepts the values that make sense for it, and its signature says which:
:data:`OnMissing` (all three: coherence), :data:`OnMissingSkip` (``"error"`` or ``"skip"``: a
vocabulary's ids, held-out likelihood, where a word of probability zero has no value to put)
and :data:`OnMissingZero` (``"error"`` or ``"zero"``: word intrusion, whose sets keep their
words). :func:`check_on_missing` refuses any other value in one wording. Either way, what was
left out or scored 0 is counted in the result.

Examples
--------
>>> from tealeaves.missing import SKIP, check_on_missing
>>> check_on_missing("skip", SKIP)
>>> check_on_missing("zero", SKIP, why="a word of probability zero has log -inf")
Traceback (most recent call last):
...
tealeaves.errors.InputError: on_missing must be one of error, skip, got 'zero' (a word of probability zero has log -inf)
"""

from __future__ import annotations

from typing import Literal

from tealeaves.errors import InputError

Refuse = Literal["error"]
Skip = Literal["skip"]
Zero = Literal["zero"]
OnMissing = Literal[Refuse, Skip, Zero]
"""Every policy: refuse, leave out, or count as 0 (coherence)."""
OnMissingSkip = Literal[Refuse, Skip]
"""Refuse or leave out (a vocabulary's ids, held-out likelihood)."""
OnMissingZero = Literal[Refuse, Zero]
"""Refuse or count as 0 (word intrusion)."""

ON_MISSING: tuple[OnMissing, ...] = ("error", "skip", "zero")
"""The values of :data:`OnMissing`, in the order messages list them."""
SKIP: tuple[OnMissingSkip, ...] = ("error", "skip")
"""The values of :data:`OnMissingSkip`."""
ZERO: tuple[OnMissingZero, ...] = ("error", "zero")
"""The values of :data:`OnMissingZero`."""


def check_on_missing(value: object, accepted: tuple[str, ...] = ON_MISSING, why: str = "") -> None:
    """Refuse an ``on_missing`` value outside ``accepted``.

    Parameters
    ----------
    value : object
        What the caller passed.
    accepted : tuple of str, optional
        The values the function takes: :data:`ON_MISSING`, :data:`SKIP` or :data:`ZERO`.
    why : str, optional
        Why the others are refused, added to the message in parentheses.

    Raises
    ------
    InputError
        ``on_missing must be one of error, zero, got 'skip'``.

    Examples
    --------
    >>> from tealeaves.missing import ZERO, check_on_missing
    >>> check_on_missing("skip", ZERO)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: on_missing must be one of error, zero, got 'skip'
    """
    if value not in accepted:
        reason = f" ({why})" if why else ""
        raise InputError(f"on_missing must be one of {', '.join(accepted)}, got {value!r}{reason}")

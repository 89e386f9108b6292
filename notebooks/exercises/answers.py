"""What every notebook's checks do first with a learner's answer: read it as the kind of value asked for.

Left out: anything about a particular exercise (each notebook's module holds its own checks).
"""

import math


def number(value, name: str) -> float:
    """`value` as a float, or an AssertionError that says it is not one number."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} is not a number") from None
    assert math.isfinite(value), f"{name} is not a finite number"
    return value

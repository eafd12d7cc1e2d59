import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests explore a fixed, reproducible set of examples: a failure in
# CI can be replayed exactly.  HYPOTHESIS_PROFILE=explore searches afresh.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def dice(monkeypatch):
    """The engine's dice, scripted: a test puts faces in ``dice["faces"]``,
    taken in order, then 6s; ``dice["asked"]`` keeps what each roll was for."""
    from runtime import state
    box = {"faces": [], "asked": []}

    def roll(s, die, purpose):
        box["asked"].append(purpose)
        return box["faces"].pop(0) if box["faces"] else 6
    monkeypatch.setattr(state, "LOADED_DICE", roll)
    return box

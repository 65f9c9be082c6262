"""The model client (`pipeline/llm/`) imports `anthropic` only when a model is first asked: the
package, its pacing and both of its users (the claim pipeline, the evidence's Tier 5) load without
it, even with a key set. Checked in a fresh interpreter, so that nothing another test imported
hides a load."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from aletheia.config import Settings
import aletheia.pipeline.llm.client as client
import aletheia.pipeline.llm.paced
import aletheia.pipeline.claims.reasoner as reasoner
import aletheia.pipeline.claims.judge
import aletheia.pipeline.evidence.llm_fallback as llm_fallback
settings = Settings(anthropic_api_key="sk-test", offline=False)
model = client.anthropic_from_settings(settings)
reasoner.reasoner_from_settings(settings)
llm_fallback.suggester_from_settings(settings)
before = sorted(m for m in sys.modules if m == "anthropic" or m.startswith("anthropic."))
if "--ask" in sys.argv:
    model._get_client()  # what the first `complete()` does
after = sorted(m for m in sys.modules if m == "anthropic" or m.startswith("anthropic."))
print(json.dumps({"before": before, "after": after}))
"""


def _probe(*args: str) -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    loaded: dict[str, list[str]] = json.loads(out.stdout)
    return loaded


def test_the_model_client_and_its_users_load_without_anthropic() -> None:
    assert _probe()["before"] == []


def test_the_first_request_loads_anthropic() -> None:
    """The probe can see the package: asking the model loads it (the `llm` extra is installed)."""
    loaded = _probe("--ask")
    assert loaded["before"] == [] and "anthropic" in loaded["after"]

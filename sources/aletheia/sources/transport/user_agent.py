"""The one User-Agent every request of Aletheia's carries (the sources' etiquette asks for it).

`Aletheia/<version> (<project url>; mailto:<address>)`: Crossref's and OpenAlex's polite pools
read the address. Requests to hosts that are not scholarly indexes (web search, a cited page)
carry no address: the contact is given to the sources that ask for it, not to every site.
"""

from __future__ import annotations

import importlib.metadata
from typing import Final

PROJECT_URL: Final = "https://github.com/aletheia-citations"


def user_agent(mailto: str | None = None) -> str:
    try:
        version = importlib.metadata.version("aletheia-citations")
    except importlib.metadata.PackageNotFoundError:  # a source tree without installed metadata
        version = "0"
    contact = f"; mailto:{mailto}" if mailto else ""
    return f"Aletheia/{version} ({PROJECT_URL}{contact})"

"""``vmb dashboard``: a static, offline HTML dashboard of evaluation runs.

:func:`build_site` turns run directories into a site (comparison tables, SVG charts, filters
and a per-task drill-down loaded on demand); :func:`serve_site` serves it on localhost;
:class:`HeadlessChromium` (in :mod:`.browser`) drives it in a real browser for tests,
screenshots and the load-time benchmark.
"""

from vmb_gym.evaluation.dashboard.serve import make_server, serve_site
from vmb_gym.evaluation.dashboard.site import build_site

__all__ = ["build_site", "make_server", "serve_site"]

"""CONVERT stage, entry point: ``convert_text`` (the library API) converts a YAML stream.

Heavy modules (ruamel, pydantic) are imported only when a document passes the cheap
prefilter, so scanning texts without Kubeflow kinds stays fast.
"""

from __future__ import annotations

from typing import Any

from migrator.convert.plain import convert_plain
from migrator.load import detect, fastload
from migrator.results import TextResult
from migrator.settings import ConvertOptions


def convert_text(text: str, target: str = "2.2", *, options: ConvertOptions | None = None,
                 render: bool = True, **option_values: Any) -> TextResult:
    """Convert every legacy document of a YAML stream; other documents stay byte-identical.

    ``options`` (or keyword arguments such as ``runtime="my-torch"``) select the target and
    runtime. Never raises on bad input: problems are findings on the documents.
    """
    if options is None:
        options = ConvertOptions(target=target, **option_values)
    if not detect.is_candidate(text):
        return TextResult(text)
    if not render and fastload.comments_needed():  # check: findings only, which comments
        with fastload.without_comments():  # never change: loaded without them (faster)
            return convert_text(text, options=options, render=False)
    if may_be_template(text):  # a templated legacy job keeps its template (template/)
        from migrator.template.route import convert_templated

        templated = convert_templated(text, options, render)
        if templated is not None:
            return templated
    return convert_plain(text, options, render)


def may_be_template(text: str) -> bool:
    """Whether ``convert_text`` offers ``text`` to the template stage before the plain
    pipeline (``convert_plain``) — otherwise the two convert it alike."""
    return "{{" in text or "$" in text

"""Markdown snippet extraction: fences of every shape, and nothing else touched."""

from __future__ import annotations

from migrator.convert import markdown

PAGE = (
    "---\ntitle: x\n```yaml\nnot: a fence in front matter\n```\n---\n"
    "Intro {{% alert %}}note{{% /alert %}}\n\n"
    "```yaml\napiVersion: v1\nkind: ConfigMap\n```\n\n"
    "1. In a list:\n\n   ~~~yml title=\"job.yaml\"\n   kind: A\n   spec:\n     x: 1\n   ~~~\n\n"
    "````yaml\n```yaml\ninner: fence\n```\n````\n"
    "```bash\nkubectl apply -f x.yaml\n```\n"
    "```\napiVersion: v1\nkind: Pod\n```\n"
    "``` ``weird``\nnot a fence\n"
)


def test_blocks_of_every_shape_are_found() -> None:
    lines, blocks = markdown.scan(PAGE)
    assert [b.info for b in blocks] == ["yaml", "yml", "yaml", "bash", ""]
    assert [b.is_snippet for b in blocks] == [True, True, True, False, True]
    listed = blocks[1]
    assert listed.indent == "   "
    assert listed.body == "kind: A\nspec:\n  x: 1\n"
    assert lines[listed.first - 1].strip().startswith("~~~")
    assert blocks[2].body == "```yaml\ninner: fence\n```\n"


def test_line_numbers_are_the_pages() -> None:
    lines, blocks = markdown.scan(PAGE)
    first = blocks[0]
    assert lines[first.line - 1] == "apiVersion: v1\n"


def test_front_matter_is_not_scanned() -> None:
    _, blocks = markdown.scan(PAGE)
    assert all("front matter" not in b.body for b in blocks)


def test_crlf_bodies_are_normalised_and_flagged() -> None:
    _, blocks = markdown.scan("text\r\n```yaml\r\na: 1\r\nb: 2\r\n```\r\n")
    assert blocks[0].crlf
    assert blocks[0].body == "a: 1\nb: 2\n"


def test_an_unclosed_fence_runs_to_the_end() -> None:
    lines, blocks = markdown.scan("```yaml\na: 1\n")
    assert blocks[0].body == "a: 1\n"
    assert blocks[0].last == len(lines)


def test_a_backtick_fence_cannot_have_backticks_in_its_info() -> None:
    _, blocks = markdown.scan("``` a`b\nx\n")
    assert blocks == []


def test_untagged_blocks_are_snippets_only_when_they_read_as_objects() -> None:
    _, blocks = markdown.scan("```\nls -la\n```\n```\nkind: Pod\napiVersion: v1\n```\n")
    assert [b.is_snippet for b in blocks] == [False, True]


def test_is_markdown() -> None:
    assert markdown.is_markdown("docs/A.MD")
    assert markdown.is_markdown("x.mdx")
    assert not markdown.is_markdown("x.yaml")

"""Placeholders are hidden behind tokens and put back exactly."""

from __future__ import annotations

from migrator.load import masking


def test_argo_parameters_round_trip() -> None:
    text = "name: {{inputs.parameters.name}}\nlabel: {{workflow.name}}\nother: {{workflow.name}}\n"
    masked = masking.mask(text, masking.ARGO_PARAMETER)
    assert "{{" not in masked.text
    assert len(masked.tokens) == 2
    assert masked.restore(masked.text) == text


def test_tokens_do_not_collide_with_the_text_or_each_other() -> None:
    text = "a: tjmph0x1z\n" + "".join(f"k{i}: {{{{p{i}}}}}\n" for i in range(12))
    masked = masking.mask(text, masking.ARGO_PARAMETER)
    assert masked.restore(masked.text) == text
    assert all(not t.startswith("tjmph0x") for t in masked.tokens)


def test_a_lost_token_is_detected() -> None:
    masked = masking.mask("a: {{x}}\nb: {{y}}\n", masking.ARGO_PARAMETER)
    assert masked.restore("a: only\n") is None


def test_shortcodes_only() -> None:
    masked = masking.mask("{{< include \"a.yaml\" >}}\nx: {{ .Values.y }}\n", masking.SHORTCODE)
    assert "{{ .Values.y }}" in masked.text
    assert "include" not in masked.text

"""What a code tool tells and asks its user while it runs: context.report_progress() (how far it
has got: `tool_progress`), context.confirm() (a yes-or-no question, asked as approvals are) and
context.ask() (a question wanting a text, a number or a choice: `tool_question`)."""

_PROGRESS_EVERY = 0.1  # seconds: an update sooner after the last one sent is dropped, unless final


def _progress_number(name, value, what="report_progress()"):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what}: {name} must be a number, not {type(value).__name__}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{what}: {name} must be a finite number")
    return value


def _report_progress(context, progress=None, total=None, message=None):
    """How far the call has got, for the client to show ("2 of 5 stores checked"): a count, what
    it counts to, a short message; the model never reads it. Updates less than 0.1 s after the
    last one sent are dropped here (a loop may report every item), but one reaching its total."""
    progress = _progress_number("progress", progress)
    total = _progress_number("total", total)
    if message is not None and not isinstance(message, str):
        raise TypeError(f"report_progress(): message must be a string, not {type(message).__name__}")
    now = time.monotonic()
    final = progress is not None and total is not None and progress >= total
    if not final and now - context._progress_sent < _PROGRESS_EVERY:
        return None
    context._progress_sent = now
    _bridge("progress", {"progress": progress, "total": total, "message": message and message[:1000]})
    return None


def _confirm(question):
    """Asks the user a yes-or-no question and waits for the answer (the call's time stands still
    meanwhile): True for yes, False for no, None when no answer came within
    TOOL_CONFIRM_TIMEOUT_SECS or no user waits on the call (a background call, an admin's try)."""
    if not isinstance(question, str) or not question.strip():
        raise TypeError("confirm(): the question must be a non-empty string")
    return _bridge("confirm", {"question": question[:1000]}).get("answer")


_ASK_TYPES = ("text", "number", "integer")
_MAX_CHOICES = 50


def _ask(question, choices=None, type="text", minimum=None, maximum=None, multiple=False):
    """Asks the user for a value and waits for the answer (the call's time stands still
    meanwhile): the text they gave, a number (int for type="integer"), one of `choices` as given,
    or with multiple=True a list of them (as many as `minimum` and `maximum` allow); None when they
    would not say, no answer came within TOOL_CONFIRM_TIMEOUT_SECS, or no user waits on the call
    (a background call, an admin's try)."""
    if not isinstance(question, str) or not question.strip():
        raise TypeError("ask(): the question must be a non-empty string")
    if type not in _ASK_TYPES:
        raise ValueError(f"ask(): type must be one of {', '.join(_ASK_TYPES)}, not {type!r}")
    wanted = {"type": type}
    if choices is not None:
        choices = list(choices)
        if not 1 <= len(choices) <= _MAX_CHOICES or not all(isinstance(c, str) and c.strip() for c in choices):
            raise TypeError(f"ask(): choices must be 1 to {_MAX_CHOICES} non-empty strings")
        wanted = {"type": "choices" if multiple else "choice", "choices": [c[:200] for c in choices]}
    elif multiple:
        raise TypeError("ask(): multiple=True needs choices")
    for name, bound in (("minimum", minimum), ("maximum", maximum)):
        if bound is not None:
            wanted[name] = _progress_number(name, bound, "ask()")
    answer = _bridge("ask", {"question": question[:1000], "wanted": wanted}).get("answer")
    if answer is not None and type == "number" and choices is None:
        return float(answer)
    return answer

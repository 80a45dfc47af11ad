/** Seed 003's `get_random_fact`, pointed at a URL of the test's choosing (replace FACTS_URL). */
export const RANDOM_FACT = `from typing import Optional

def get_random_fact() -> Optional[str]:
    """Fetches a random fact from a public API."""
    url = FACTS_URL
    try:
        res = ces_requests.get(url=url, params={"language": "en"}, headers={"Accept": "application/json"})
        res.raise_for_status()
        fact_data = res.json()
        return fact_data.get("text")
    except:
        return None
`;

/** Seed 003's `get_last_user_utterance`: the context's last user message. */
export const LAST_UTTERANCE = `from typing import Optional

def get_last_user_utterance() -> Optional[str]:
    """
    Retrieves the most recent message sent by the user from the conversation history.

    Returns:
        The text of the last user message, or None if no user messages are found.
    """
    user_messages = [
        part.text for part in context.user_content.parts
        if context.user_content.role == "user"
    ]
    if user_messages:
        return user_messages[0]
    return None
`;

/**
 * Seed 003's masking callback, with a helper written before it: the callback is the function of
 * that name, not the file's first.
 */
export const MASKING = `def hidden_for(modality):
    if modality == "VOICE":
        return ["custom_actions", "plan_builder", "rich_carousel"]
    return ["send_sms_link", "hang_up_call"]

def before_model_callback(callback_context, llm_request) -> None:
    _session = callback_context.variables.get("_session", {})
    modality = _session.get("modality", "TEXT").upper()
    for tool_name in hidden_for(modality):
        llm_request.config.hide_tool(tool_name)
`;

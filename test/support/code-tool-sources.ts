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

//! More ACP flows of the fake agent.

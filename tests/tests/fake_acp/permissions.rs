//! Permission flows of the fake agent.

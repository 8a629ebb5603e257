//! Teams: member discovery from folders, role files, `chatmd.toml`, path containment and
//! the workspace scan.

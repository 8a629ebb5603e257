//! The benchmark's rows and how they are printed: one Markdown table (measured value,
//! target, the baseline measured in the same run, their ratio, met or not), or the same
//! rows as JSON with `--json`.

use std::time::Duration;

use serde::Serialize;

/// One measurement, next to what it is compared with.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
    /// The target in words (`<= 50 ms`, `>= 1 GB/s and >= 5 x the baseline`).
    pub target: String,
    /// What the value is compared with, measured in the same run, in the same unit.
    pub baseline: Option<Baseline>,
    /// How the value stands against the baseline, as the target reads it (`5.2` for
    /// "5.2 × faster"); `None` without a baseline.
    pub ratio: Option<f64>,
    pub met: bool,
    /// Anything the numbers alone do not say (spread, sizes, counts).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Baseline {
    pub name: String,
    pub value: f64,
}

impl Row {
    pub fn new(name: impl Into<String>, value: f64, unit: &'static str) -> Row {
        Row {
            name: name.into(),
            value,
            unit,
            target: String::new(),
            baseline: None,
            ratio: None,
            met: true,
            note: String::new(),
        }
    }

    pub fn target(mut self, target: impl Into<String>, met: bool) -> Row {
        self.target = target.into();
        self.met = met;
        self
    }

    pub fn baseline(mut self, name: impl Into<String>, value: f64, ratio: f64) -> Row {
        self.baseline = Some(Baseline {
            name: name.into(),
            value,
        });
        self.ratio = Some(ratio);
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Row {
        self.note = note.into();
        self
    }
}

/// Every row, printed as it comes (a run takes minutes) and once more at the end.
#[derive(Default)]
pub struct Report {
    pub rows: Vec<Row>,
    pub json: bool,
}

impl Report {
    pub fn add(&mut self, row: Row) {
        if !self.json {
            eprintln!("  {}: {} {}", row.name, number(row.value), row.unit);
        }
        self.rows.push(row);
    }

    /// The table, or the JSON array of rows.
    pub fn render(&self) -> String {
        if self.json {
            return serde_json::to_string_pretty(&self.rows).expect("rows are JSON");
        }
        let mut out = String::from(
            "| row | measured | target | baseline (same run) | ratio | met |\n|---|---|---|---|---|---|\n",
        );
        for row in &self.rows {
            let baseline = row.baseline.as_ref().map_or("—".to_string(), |b| {
                format!("{}: {} {}", b.name, number(b.value), row.unit)
            });
            let ratio = row.ratio.map_or("—".to_string(), |r| format!("{r:.2}"));
            let mut measured = format!("{} {}", number(row.value), row.unit);
            if !row.note.is_empty() {
                measured.push_str(&format!(" ({})", row.note));
            }
            out.push_str(&format!(
                "| {} | {measured} | {} | {baseline} | {ratio} | {} |\n",
                row.name,
                row.target,
                if row.met { "yes" } else { "**no**" }
            ));
        }
        out
    }
}

/// A value with as many digits as it needs to be read.
fn number(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Samples of one measurement: its median and spread.
pub struct Samples(pub Vec<Duration>);

impl Samples {
    pub fn median(&self) -> Duration {
        self.percentile(0.5)
    }

    pub fn percentile(&self, p: f64) -> Duration {
        let mut v = self.0.clone();
        v.sort();
        v[((v.len() as f64 - 1.0) * p).round() as usize]
    }

    /// `min–max over N`, for a row's note.
    pub fn spread_ms(&self) -> String {
        let min = self.0.iter().min().copied().unwrap_or_default();
        let max = self.0.iter().max().copied().unwrap_or_default();
        format!("{:.1}–{:.1} ms over {}", ms(min), ms(max), self.0.len())
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

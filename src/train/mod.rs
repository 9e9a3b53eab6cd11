//! `train`: fit the evaluation's weights to self-play data and write a weights file.
//!
//! The positions come from `selfplay` files; each quiet searched position (no five to make
//! or stop, no open four to play) asks the evaluation for a win probability between the
//! game's result and the search's value (a proven value counting as all but sure). The weights start from the rule's
//! compiled-in file (or `--from`), and the written file replaces that one in
//! `src/pattern/weights/` to build a binary that plays with them.
//!
//! With `--policy` it fits the move-ordering scores of `src/pattern/policy/` instead, to
//! the moves the search chose (`policy`).

mod codebook_data;
mod fit;
mod net;
mod policy;
pub(crate) mod samples;

use crate::pattern;
use crate::pattern::policy::Policy;
use crate::pattern::weights::{self, Weights};
use crate::selfplay::data;
use crate::types::Rule;
use std::io::Write;
use std::path::PathBuf;

/// The `train` command line.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Self-play data files (written by `selfplay`).
    #[arg(required = true, value_name = "DATA")]
    pub data: Vec<PathBuf>,
    /// The weights file to write. It must not exist yet, unless --force is given.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Overwrite --out if it exists (as when replacing the compiled-in file).
    #[arg(long)]
    pub force: bool,
    /// Rule whose games are used: 0 freestyle, 1 exact five, 4 renju, 8 caro, 9 caro with
    /// exact five (or a name). Games of other rules are skipped.
    #[arg(long, default_value = "0", value_parser = crate::cli::rule)]
    pub rule: Rule,
    /// Start from this weights file instead of the compiled-in one.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Weight of the game's result in the target; the search's value has the rest.
    #[arg(long, default_value_t = 0.5, value_parser = crate::cli::probability)]
    pub lambda: f64,
    /// Full passes over the data.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub iterations: u64,
    /// Adam's first step size, in evaluation units.
    #[arg(long, default_value_t = 2.0)]
    pub rate: f64,
    /// L2 penalty that keeps each pattern code near its class's value.
    #[arg(long, default_value_t = 1e-7)]
    pub l2: f64,
    /// Fewest positions a pattern code must appear in to get a value of its own.
    #[arg(long, default_value_t = 50)]
    pub min_count: usize,
    /// Keep the threat classes' values and the tempo; learn only each code's difference
    /// from its class.
    #[arg(long)]
    pub keep_classes: bool,
    /// Evaluation units per logistic unit, for the search's values and the evaluation
    /// alike (200 is the curve the engine reports win rates on).
    #[arg(long, default_value_t = 200.0, value_parser = scale)]
    pub scale: f64,
    /// Weight of a ranking loss beside the fit to each position's target: positions one
    /// move off the same position (as `siblings` writes them) are also fitted in pairs,
    /// the difference of their evaluations to the difference of their targets.
    #[arg(long, default_value_t = 0.0, value_parser = weight)]
    pub rank: f64,
    /// Every N-th game is held out to measure the fit (0: none).
    #[arg(long, default_value_t = 10)]
    pub hold_out: usize,
    /// Fit the move-ordering scores (a `src/pattern/policy/` file) to the search's chosen
    /// moves instead of the evaluation to the results. --lambda, --scale and
    /// --keep-classes do not apply; --l2 is then per unit of score.
    #[arg(long)]
    pub policy: bool,
    /// With --policy: score units per logit (by default, the one under which the
    /// starting scores fit the data best).
    #[arg(long, value_parser = scale)]
    pub temperature: Option<f64>,
    /// With --policy: learn the threat codes' scores too (an own open three or more, a
    /// their four or more), not only the quiet codes'.
    #[arg(long)]
    pub threats: bool,
    /// With --policy: a pairwise loss, each other move against the chosen one, instead
    /// of the softmax's.
    #[arg(long)]
    pub pairwise: bool,
    /// Fit the evaluation's network (a `src/pattern/weights/*-net.txt` file) instead:
    /// the correction on top of the cell values (the compiled-in ones, or --from's).
    /// --lambda, --scale and --hold-out apply; the network always starts afresh.
    #[arg(long, conflicts_with = "policy")]
    pub net: bool,
    /// Write the quiet positions to --out for the codebook network's trainer
    /// (`scripts/train-codebook.py`) instead of fitting anything: each cell's line
    /// patterns, the evaluation without networks and the target. --lambda, --scale and
    /// --hold-out apply.
    #[arg(long, conflicts_with_all = ["policy", "net"])]
    pub codebook_data: bool,
    /// With --codebook-data: the evaluation written is the one with this codebook
    /// network (for checking a trainer against the engine).
    #[arg(long, value_name = "FILE", requires = "codebook_data")]
    pub codebook: Option<PathBuf>,
    /// With --net: passes over the data.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub passes: u64,
}

/// A number from `lo` to `hi`.
fn number_in(v: &str, lo: f64, hi: f64) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!("expected a number from {lo} to {hi}")),
    }
}

fn weight(v: &str) -> Result<f64, String> {
    number_in(v, 0.0, 100.0)
}

fn scale(v: &str) -> Result<f64, String> {
    number_in(v, 10.0, 10_000.0)
}

/// What a run did, for the caller and the tests.
#[derive(Debug)]
pub struct Report {
    pub positions: usize,
    pub train_before: f64,
    pub train_after: f64,
    pub held_before: f64,
    pub held_after: f64,
    pub weights: Weights,
}

/// Run the command: fit the evaluation, or with `--policy` the move ordering.
pub fn command(args: &Args, progress: &mut dyn Write) -> anyhow::Result<()> {
    if args.policy {
        run_policy(args, progress)
    } else if args.net {
        run_net(args, progress)
    } else if args.codebook_data {
        codebook_data::run(args, progress)
    } else {
        run(args, progress).map(drop)
    }
}

/// Check that `--out` may be written, then read and parse `--from` if given.
fn starting_file<T>(
    args: &Args,
    parse: fn(&str) -> anyhow::Result<T>,
) -> anyhow::Result<Option<T>> {
    anyhow::ensure!(
        args.force || !args.out.exists(),
        "{} exists: give --force to replace it",
        args.out.display()
    );
    let Some(path) = &args.from else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    parse(&text)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{}: {e:#}", path.display()))
}

/// Read each data file in turn and hand its games to `add`.
fn for_each_file(
    args: &Args,
    progress: &mut dyn Write,
    add: &mut dyn FnMut(&[data::Game]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for path in &args.data {
        let contents = data::read(path)?;
        if contents.cut_off > 0 {
            writeln!(
                progress,
                "{}: the last {} bytes are a cut-off game, ignored",
                path.display(),
                contents.cut_off
            )?;
        }
        add(&contents.games).map_err(|e| anyhow::anyhow!("{}: {e:#}", path.display()))?;
    }
    Ok(())
}

/// Read the data, fit and write the weights; progress lines go to `progress`.
pub fn run(args: &Args, progress: &mut dyn Write) -> anyhow::Result<Report> {
    let start = starting_file(args, Weights::parse)?.unwrap_or_else(|| weights::builtin(args.rule));
    anyhow::ensure!(
        start.sides.len() == weights::sides(args.rule),
        "the starting weights must have {} for this rule",
        if args.rule == Rule::Renju {
            "`side black` and `side white`"
        } else {
            "one set of values for both colours"
        }
    );
    let mut model = fit::Model::new(&start, args.rule);
    let mut set = samples::Samples::default();
    let mut tally = samples::Tally::default();
    for_each_file(args, progress, &mut |games| {
        set.add(
            games,
            args.rule,
            args.lambda,
            args.scale,
            args.hold_out,
            &mut tally,
        )
    })?;
    tally.report(progress, "quiet", set.is_empty())?;
    let settings = fit::Settings {
        iterations: args.iterations as usize,
        rate: args.rate,
        l2: args.l2,
        min_count: args.min_count,
        keep_classes: args.keep_classes,
        scale: args.scale,
        rank: args.rank,
    };
    let (train_before, held_before) = (
        model.loss(&set, false, args.scale),
        model.loss(&set, true, args.scale),
    );
    let agreement_before = model.pair_agreement(&set, true);
    model.fit(&set, &settings, &mut |it, loss| {
        let _ = writeln!(progress, "iteration {it}: training loss {loss:.5}");
    });
    let weights = model.weights();
    // The loss of the rounded weights, as the engine will use them.
    let rounded = fit::Model::new(&weights, args.rule);
    let report = Report {
        positions: set.len(),
        train_before,
        train_after: rounded.loss(&set, false, args.scale),
        held_before,
        held_after: rounded.loss(&set, true, args.scale),
        weights,
    };
    writeln!(
        progress,
        "loss on training positions {:.5} -> {:.5}, on held-out games {:.5} -> {:.5}",
        report.train_before, report.train_after, report.held_before, report.held_after
    )?;
    if let (Some(before), Some(after)) = (agreement_before, rounded.pair_agreement(&set, true)) {
        writeln!(
            progress,
            "held-out sibling pairs the evaluation orders as their searches do: {:.2}% -> {:.2}%",
            100.0 * before,
            100.0 * after
        )?;
    }
    let data: Vec<String> = args.data.iter().map(|p| p.display().to_string()).collect();
    let header = format!(
        "Wuzi's evaluation weights for rule {} ({}), written by `pbrain-wuzi train`\n\
         from {} ({} games, {} quiet positions), lambda {}, {} iterations, rate {},\n\
         l2 {}, min-count {}{}, scale {}{}. Loss on held-out games {:.5} -> {:.5}.",
        args.rule.protocol(),
        args.rule.name(),
        data.join(", "),
        tally.games,
        set.len(),
        args.lambda,
        args.iterations,
        args.rate,
        args.l2,
        args.min_count,
        if args.keep_classes {
            ", classes kept"
        } else {
            ""
        },
        args.scale,
        if args.rank > 0.0 {
            format!(", rank {}", args.rank)
        } else {
            String::new()
        },
        report.held_before,
        report.held_after
    );
    std::fs::write(&args.out, report.weights.to_text(&header))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
    writeln!(progress, "wrote {}", args.out.display())?;
    Ok(report)
}

/// Read the data, fit the evaluation's network on top of the cell values and write it.
pub fn run_net(args: &Args, progress: &mut dyn Write) -> anyhow::Result<()> {
    let cells = starting_file(args, Weights::parse)?.unwrap_or_else(|| weights::builtin(args.rule));
    anyhow::ensure!(
        cells.sides.len() == 1,
        "a network is for rules with one set of cell values for both colours, not renju"
    );
    let tables = std::sync::Arc::new(pattern::RuleTables::with_weights_and_net(
        args.rule, &cells, None,
    ));
    let mut set = net::Positions::default();
    let mut tally = samples::Tally::default();
    for_each_file(args, progress, &mut |games| {
        set.add(
            games,
            args.rule,
            &tables,
            (args.lambda, args.scale, args.hold_out),
            &mut tally,
        )
    })?;
    tally.report(progress, "quiet", set.is_empty())?;
    let fitted = net::fit(
        &set,
        args.passes as usize,
        args.scale,
        &mut |pass, train, held| {
            let held = held.map_or(String::new(), |h| format!(", held-out games {h:.5}"));
            let _ = writeln!(
                progress,
                "pass {}: training loss {train:.5}{held}",
                pass + 1
            );
        },
    );
    let held = fitted.held.map_or(String::new(), |(b, a)| {
        format!(", on held-out games {b:.5} -> {a:.5}")
    });
    writeln!(
        progress,
        "loss on training positions {:.5} -> {:.5}{held}",
        fitted.train.0, fitted.train.1
    )?;
    let data: Vec<String> = args.data.iter().map(|p| p.display().to_string()).collect();
    let header = format!(
        "Wuzi's evaluation network for rule {} ({}), written by `pbrain-wuzi train --net`\n\
         from {} ({} games, {} quiet positions),\n\
         on the cell values of {}, lambda {}, {} passes, scale {}.\n\
         Loss by the cell values alone, then with the network: on training positions\n\
         {:.5} -> {:.5}{held}.",
        args.rule.protocol(),
        args.rule.name(),
        data.join(", "),
        tally.games,
        set.len(),
        args.from
            .as_ref()
            .map_or("the compiled-in weights".to_string(), |p| p
                .display()
                .to_string()),
        args.lambda,
        args.passes,
        args.scale,
        fitted.train.0,
        fitted.train.1,
    );
    std::fs::write(&args.out, fitted.net.to_text(&header))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
    writeln!(progress, "wrote {}", args.out.display())?;
    Ok(())
}

/// Read the data, fit the move-ordering scores and write them.
pub fn run_policy(args: &Args, progress: &mut dyn Write) -> anyhow::Result<()> {
    let start =
        starting_file(args, Policy::parse)?.unwrap_or_else(|| pattern::policy::builtin(args.rule));
    let mut set = policy::Choices::default();
    let mut tally = samples::Tally::default();
    for_each_file(args, progress, &mut |games| {
        set.add(games, args.rule, args.hold_out, &mut tally)
    })?;
    tally.report(progress, "ordered", set.is_empty())?;
    let mut model = policy::Model::new(&start, args.rule);
    match args.temperature {
        Some(t) => model.temperature = t,
        None => model.choose_temperature(&set),
    }
    writeln!(
        progress,
        "temperature {:.1} score units per logit",
        model.temperature
    )?;
    let (train_before, held_before) = (model.fit_of(&set, false), model.fit_of(&set, true));
    let settings = policy::Settings {
        iterations: args.iterations as usize,
        rate: args.rate,
        l2: args.l2,
        min_count: args.min_count,
        threats: args.threats,
        pairwise: args.pairwise,
    };
    model.fit(&set, &settings, &mut |it, loss| {
        let _ = writeln!(progress, "iteration {it}: training loss {loss:.5}");
    });
    let learned = model.policy(args.rule);
    // The fit of the rounded scores, as the engine will use them.
    let mut rounded = policy::Model::new(&learned, args.rule);
    rounded.temperature = model.temperature;
    let (train_after, held_after) = (rounded.fit_of(&set, false), rounded.fit_of(&set, true));
    let show = |f: &policy::Fit| {
        format!(
            "{:.4} ({:.1}% first, {:.1}% in the first five)",
            f.loss,
            100.0 * f.accuracy,
            100.0 * f.top5
        )
    };
    writeln!(
        progress,
        "loss on training positions {} -> {}, on held-out games {} -> {}",
        show(&train_before),
        show(&train_after),
        show(&held_before),
        show(&held_after)
    )?;
    let data: Vec<String> = args.data.iter().map(|p| p.display().to_string()).collect();
    let header = format!(
        "Wuzi's move-ordering scores for rule {} ({}), written by `pbrain-wuzi train --policy`\n\
         from {} ({} games, {} ordered positions), {} iterations, rate {}, l2 {},\n\
         min-count {}, temperature {:.1}. Held-out games: loss {} -> {}.",
        args.rule.protocol(),
        args.rule.name(),
        data.join(", "),
        tally.games,
        set.len(),
        args.iterations,
        args.rate,
        args.l2,
        args.min_count,
        model.temperature,
        show(&held_before),
        show(&held_after)
    );
    std::fs::write(&args.out, learned.to_text(&header))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
    writeln!(progress, "wrote {}", args.out.display())?;
    Ok(())
}

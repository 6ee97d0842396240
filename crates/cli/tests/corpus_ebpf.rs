//! The front end accepts every eBPF sample of the reference compiler's
//! corpus (`p4_16_samples/*_ebpf*.p4`): the programs the eBPF back end
//! will compile first. Skips, saying so, where the corpus is absent.

mod common;

use p4bpf_front::Options;

#[test]
fn every_ebpf_sample_is_accepted() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED every_ebpf_sample_is_accepted: ../shared/corpus/p4c is absent");
        return;
    };
    let mut samples: Vec<_> = std::fs::read_dir(corpus.join("p4_16_samples"))
        .expect("p4_16_samples is readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.ends_with(".p4") && name.contains("_ebpf")
        })
        .collect();
    samples.sort();
    assert!(!samples.is_empty(), "no *_ebpf*.p4 sample found");
    let mut rejected = Vec::new();
    for sample in &samples {
        let fe = p4bpf_front::check_file(sample, &Options::default());
        let first_error = fe
            .diagnostics
            .errors()
            .next()
            .map(|d| d.render(&fe.sources));
        if let Some(message) = first_error {
            rejected.push(message.lines().next().unwrap_or_default().to_string());
        }
    }
    assert!(
        rejected.is_empty(),
        "{} of {} eBPF samples rejected:\n{}",
        rejected.len(),
        samples.len(),
        rejected.join("\n")
    );
}

"""Seeded, plausible works for the source and speed benchmarks: titles built from the vocabulary
of machine-learning and biomedical papers, author names from several naming traditions, real
venue names, DOIs under real publisher prefixes and arXiv ids of the right shape. Nothing here
names a real paper; the point is realistic *shapes* (lengths, overlaps between titles, shared
surnames) so that searches rank among near neighbours as they do at the real sources."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

_ADJECTIVES = (
    "Scalable",
    "Robust",
    "Efficient",
    "Sparse",
    "Hierarchical",
    "Contrastive",
    "Bayesian",
    "Adaptive",
    "Federated",
    "Self-Supervised",
    "Causal",
    "Differentiable",
    "Multimodal",
    "Interpretable",
    "Unsupervised",
    "Probabilistic",
    "Neural",
    "Graph-Based",
    "Distributed",
    "Low-Rank",
    "Equivariant",
    "Structured",
    "Generative",
    "Implicit",
    "Stochastic",
    "Online",
    "Continual",
    "Few-Shot",
)
_NOUNS = (
    "Transformers",
    "Representations",
    "Embeddings",
    "Attention",
    "Diffusion Models",
    "Networks",
    "Policies",
    "Kernels",
    "Estimators",
    "Autoencoders",
    "Retrieval",
    "Language Models",
    "Priors",
    "Optimizers",
    "Classifiers",
    "Ensembles",
    "Gaussian Processes",
    "Normalizing Flows",
    "Agents",
    "Segmentation",
    "Tokenizers",
    "Graph Neural Networks",
    "Sequence Models",
    "Mixture Models",
)
_TASKS = (
    "Image Classification",
    "Machine Translation",
    "Protein Folding",
    "Drug Discovery",
    "Question Answering",
    "Object Detection",
    "Speech Recognition",
    "Time Series Forecasting",
    "Recommendation",
    "Reinforcement Learning",
    "Tumor Segmentation",
    "Gene Expression Analysis",
    "Code Generation",
    "Text Summarization",
    "Anomaly Detection",
    "Molecular Property Prediction",
    "Medical Imaging",
    "Climate Modeling",
    "Visual Navigation",
    "Dialogue Systems",
    "Causal Discovery",
    "Semantic Parsing",
    "Video Understanding",
    "Point Cloud Registration",
    "Clinical Prediction",
)
_PATTERNS = (
    "{adj} {noun} for {task}",
    "Learning {adj} {noun} for {task}",
    "On the Convergence of {adj} {noun}",
    "{adj} {noun}: Towards Better {task}",
    "Towards {adj} {task} with {noun}",
    "Rethinking {noun} in {task}",
    "{adj} and {adj2} {noun} for {task}",
    "A Theory of {adj} {noun}",
    "When Do {noun} Help {task}?",
    "{noun} Are {adj} Learners of {task}",
)
_GIVEN = (
    "Wei",
    "Jing",
    "Xiaoming",
    "Yuki",
    "Hiroshi",
    "Min-jun",
    "Ji-woo",
    "Anna",
    "Maria",
    "Lukas",
    "Sofia",
    "Pierre",
    "Camille",
    "Giulia",
    "Marco",
    "Olga",
    "Dmitri",
    "Ahmed",
    "Fatima",
    "Priya",
    "Arjun",
    "Kwame",
    "Amara",
    "Carlos",
    "Lucía",
    "João",
    "Emily",
    "James",
    "Michael",
    "Sarah",
    "David",
    "Laura",
    "Thomas",
)
_FAMILY = (
    "Wang",
    "Li",
    "Zhang",
    "Liu",
    "Chen",
    "Yang",
    "Huang",
    "Zhao",
    "Kim",
    "Park",
    "Lee",
    "Tanaka",
    "Suzuki",
    "Müller",
    "Schmidt",
    "Rossi",
    "Bianchi",
    "Dubois",
    "Martin",
    "García",
    "Fernández",
    "Silva",
    "Ivanov",
    "Kowalski",
    "Nguyen",
    "Patel",
    "Singh",
    "Okafor",
    "Mensah",
    "Smith",
    "Johnson",
    "Brown",
    "Taylor",
    "Anderson",
    "van der Berg",
    "O'Neill",
    "Jørgensen",
    "Novák",
    "Öztürk",
    "Haddad",
)
# (venue, Crossref type, DOI prefix + pattern)
_VENUES = (
    ("Advances in Neural Information Processing Systems", "proceedings-article", "10.52202/neurips.{y}.{n}"),
    (
        "Proceedings of the AAAI Conference on Artificial Intelligence",
        "proceedings-article",
        "10.1609/aaai.v{v}i{i}.{n}",
    ),
    (
        "2022 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
        "proceedings-article",
        "10.1109/cvpr.{y}.{n}",
    ),
    ("Nature", "journal-article", "10.1038/s41586-0{v}-{n}-x"),
    ("Journal of Machine Learning Research", "journal-article", "10.5555/jmlr.{y}.{n}"),
    ("Bioinformatics", "journal-article", "10.1093/bioinformatics/btab{n}"),
    (
        "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        "journal-article",
        "10.1109/tpami.{y}.{n}",
    ),
    (
        "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
        "proceedings-article",
        "10.18653/v1/{y}.emnlp-main.{n}",
    ),
    ("Nature Communications", "journal-article", "10.1038/s41467-0{v}-{n}-y"),
    ("PLOS ONE", "journal-article", "10.1371/journal.pone.0{n}"),
    ("Machine Learning", "journal-article", "10.1007/s10994-0{v}-0{n}-z"),
    ("ACM Computing Surveys", "journal-article", "10.1145/3{n}"),
)


@dataclass
class SyntheticWork:
    """A universe line (`record`) and how it is cited (`cite`: doi, arxiv or title)."""

    record: dict[str, Any]
    cite: str


def _title(rng: random.Random) -> str:
    adj, adj2 = rng.sample(_ADJECTIVES, 2)
    return rng.choice(_PATTERNS).format(adj=adj, adj2=adj2, noun=rng.choice(_NOUNS), task=rng.choice(_TASKS))


def _authors(rng: random.Random) -> list[dict[str, str]]:
    count = rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8))
    return [{"given": rng.choice(_GIVEN), "family": rng.choice(_FAMILY)} for _ in range(count)]


def _arxiv_id(rng: random.Random, year: int, used: set[str]) -> str:
    """A new-style id of the work's year: four-digit numbers until 2014, five from 2015."""
    while True:
        yymm = f"{year % 100:02d}{rng.randint(1, 12):02d}"
        number = f"{rng.randint(1, 29999):05d}" if year >= 2015 else f"{rng.randint(1, 9999):04d}"
        candidate = f"{yymm}.{number}"
        if candidate not in used:
            used.add(candidate)
            return candidate


def generate(
    count: int, *, doi_share: float, arxiv_share: float, seed: int, distractors: int = 0
) -> list[SyntheticWork]:
    """`count` cited works (that share with DOIs, that share arXiv-only, the rest cited by title
    only) plus `distractors` uncited works that crowd the search indexes."""
    rng = random.Random(seed)
    works: list[SyntheticWork] = []
    seen_titles: set[str] = set()
    used_arxiv: set[str] = set()
    n_doi = round(count * doi_share)
    n_arxiv = round(count * arxiv_share)
    for serial in range(count + distractors):
        title = _title(rng)
        while title.lower() in seen_titles:
            title = f"{_title(rng)}"
        seen_titles.add(title.lower())
        year = rng.randint(2012, 2025)
        authors = _authors(rng)
        if n_doi <= serial < n_doi + n_arxiv:  # arXiv-only preprint
            arxiv = _arxiv_id(rng, year, used_arxiv)
            record: dict[str, Any] = {
                "title": title,
                "authors": authors,
                "year": year,
                "type": "posted-content",
                "arxiv_id": arxiv,
                "arxiv_categories": [rng.choice(["cs.LG", "cs.CL", "cs.CV", "stat.ML", "q-bio.QM"])],
            }
            works.append(SyntheticWork(record, "arxiv" if serial < count else "none"))
            continue
        venue, work_type, pattern = rng.choice(_VENUES)
        doi = pattern.format(y=year, v=rng.randint(10, 38), i=rng.randint(1, 12), n=100000 + serial)
        record = {
            "title": title,
            "authors": authors,
            "year": year,
            "venue": venue,
            "type": work_type,
            "doi": doi,
            "volume": str(rng.randint(1, 40)),
            "pages": f"{rng.randint(1, 900)}-{rng.randint(901, 1800)}",
        }
        if rng.random() < 0.25:  # a preprint of it on arXiv, as for many ML papers
            record["related"] = {"preprint_arxiv_id": _arxiv_id(rng, max(year - 1, 2012), used_arxiv)}
        cite = "doi" if serial < n_doi else "title" if serial < count else "none"
        works.append(SyntheticWork(record, cite))
    return works


def _bib_authors(authors: list[dict[str, str]]) -> str:
    return " and ".join(f"{a['family']}, {a['given']}" for a in authors)


def citation_bibtex(work: SyntheticWork, key: str) -> str:
    """The work cited correctly, in BibTeX, with the identifiers its `cite` mode allows."""
    from aletheia.bench.common import bibtex_entry

    r = work.record
    fields: list[tuple[str, str | None]] = [
        ("title", r["title"]),
        ("author", _bib_authors(r["authors"])),
        ("year", str(r["year"])),
    ]
    if work.cite == "arxiv":
        fields += [
            ("journal", f"arXiv preprint arXiv:{r['arxiv_id']}"),
            ("eprint", r["arxiv_id"]),
            ("archiveprefix", "arXiv"),
        ]
        return bibtex_entry(key, "article", fields)
    entry_type = "inproceedings" if r["type"] == "proceedings-article" else "article"
    fields.append(("booktitle" if entry_type == "inproceedings" else "journal", r["venue"]))
    if work.cite == "doi":
        fields.append(("doi", r["doi"]))
    return bibtex_entry(key, entry_type, fields)

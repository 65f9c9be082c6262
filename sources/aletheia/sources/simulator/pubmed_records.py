"""A PubMed record of a work, as E-utilities serve it: the esummary document summary (JSON, and
the v1 XML `DocSum` written from it) and the efetch `PubmedArticle`. MEDLINE's conventions: names
as "Family Initials", titles ending with a period, publication types by MeSH UI; a retracted
work is a "Retracted Publication" with a `RetractionIn` link, a notice a "Retraction of
Publication".
"""

from __future__ import annotations

from typing import Any, Final

from aletheia.sources.simulator.common import month_day, xml_text
from aletheia.sources.simulator.ids import stable_int
from aletheia.sources.simulator.search import fold
from aletheia.sources.simulator.work import SimAuthor, SimWork

MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def medline_name(author: SimAuthor) -> str:
    """ "De Neve JE": family name, then initials."""
    if author.literal:
        return author.literal
    return f"{author.family} {author.initials}".strip()


def _pubdate(work: SimWork) -> str:
    if work.year is None:
        return ""
    month, _ = month_day(work, "pubmed")
    return f"{work.year} {MONTHS[month - 1]}"


def medline_title(title: str) -> str:
    """MEDLINE ends every title with a period."""
    return title if title.endswith((".", "?", "!")) else f"{title}."


def _publication_types(work: SimWork) -> list[tuple[str, str]]:
    types = (
        [("D000076942", "Preprint")] if work.type == "posted-content" else [("D016428", "Journal Article")]
    )
    if work.retracted:
        types.append(("D016441", "Retracted Publication"))
    if isinstance(work.meta.get("retraction_of"), str):
        types.append(("D016440", "Retraction of Publication"))
    return types


def _retraction_source(work: SimWork) -> str:
    year = work.retraction_year or ((work.year + 1) if work.year else None)
    return f"{work.venue or 'Journal'}. {year}" if year else work.venue or "Journal"


def _summary_article_ids(work: SimWork) -> list[dict[str, Any]]:
    """The summary's `articleids`: PMID, DOI and PMC id, in NCBI's order."""
    assert work.pmid is not None
    article_ids: list[dict[str, Any]] = [{"idtype": "pubmed", "idtypen": 1, "value": work.pmid}]
    if work.doi:
        article_ids.append({"idtype": "doi", "idtypen": 3, "value": work.doi})
    if work.pmcid:
        article_ids.append({"idtype": "pmc", "idtypen": 8, "value": work.pmcid})
    article_ids += [
        {"idtype": "rid", "idtypen": 8, "value": work.pmid},
        {"idtype": "eid", "idtypen": 8, "value": work.pmid},
    ]
    if work.pmcid:
        article_ids.append({"idtype": "pmcid", "idtypen": 5, "value": f"pmc-id: {work.pmcid};"})
    return article_ids


def summary_json(work: SimWork) -> dict[str, Any]:
    """esummary's JSON document summary of a work (the XML `DocSum` is written from it)."""
    assert work.pmid is not None
    month, day = month_day(work, "pubmed")
    authors = [
        {"name": medline_name(a), "authtype": "CollectiveName" if a.literal else "Author", "clusterid": ""}
        for a in work.authors
    ]
    references = []
    if work.retracted:
        references.append(
            {"refsource": _retraction_source(work), "reftype": "Retraction in", "pmid": "", "note": ""}
        )
    title = medline_title(work.display_title)
    year = work.year
    return {
        "uid": work.pmid,
        "pubdate": _pubdate(work),
        "epubdate": "",
        "source": work.venue or "",
        "authors": authors,
        "lastauthor": medline_name(work.authors[-1]) if work.authors else "",
        "title": title,
        "sorttitle": fold(title).rstrip("."),
        "volume": work.volume or "",
        "issue": work.issue or "",
        "pages": work.pages or "",
        "lang": ["eng"],
        "nlmuniqueid": str(stable_int("nlm", work.venue or "", digits=7)),
        "issn": "",
        "essn": "",
        "pubtype": [name for _, name in _publication_types(work)],
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": _summary_article_ids(work),
        "history": [{"pubstatus": "pubmed", "date": f"{year}/{month:02d}/{day:02d} 00:00"}] if year else [],
        "references": references,
        "attributes": ["Has Abstract"] if work.abstract else [],
        "pmcrefcount": "",
        "fulljournalname": work.venue or "",
        "elocationid": f"doi: {work.doi}" if work.doi else "",
        "doctype": "citation",
        "srccontriblist": [],
        "booktitle": "",
        "medium": "",
        "edition": "",
        "publisherlocation": "",
        "publishername": "",
        "srcdate": "",
        "reportnumber": "",
        "availablefromurl": "",
        "locationlabel": "",
        "doccontriblist": [],
        "docdate": "",
        "bookname": "",
        "chapter": "",
        "sortpubdate": f"{year}/{month:02d}/01 00:00" if year else "",
        "sortfirstauthor": medline_name(work.authors[0]) if work.authors else "",
        "vernaculartitle": "",
    }


def summary_xml(work: SimWork) -> str:
    doc = summary_json(work)

    def item(name: str, value: str, kind: str = "String") -> str:
        return f'\t<Item Name="{name}" Type="{kind}">{xml_text(value)}</Item>\n'

    authors = "".join(
        f'\t\t<Item Name="Author" Type="String">{xml_text(a["name"])}</Item>\n' for a in doc["authors"]
    )
    ids = "".join(
        f'\t\t<Item Name="{xml_text(i["idtype"])}" Type="String">{xml_text(str(i["value"]))}</Item>\n'
        for i in doc["articleids"]
    )
    types = "".join(f'\t\t<Item Name="PubType" Type="String">{xml_text(t)}</Item>\n' for t in doc["pubtype"])
    return (
        "<DocSum>\n"
        f"\t<Id>{doc['uid']}</Id>\n"
        + item("PubDate", doc["pubdate"], "Date")
        + item("EPubDate", "", "Date")
        + item("Source", doc["source"])
        + f'\t<Item Name="AuthorList" Type="List">\n{authors}\t</Item>\n'
        + item("LastAuthor", doc["lastauthor"])
        + item("Title", doc["title"])
        + item("Volume", doc["volume"])
        + item("Issue", doc["issue"])
        + item("Pages", doc["pages"])
        + f'\t<Item Name="PubTypeList" Type="List">\n{types}\t</Item>\n'
        + item("RecordStatus", doc["recordstatus"])
        + item("PubStatus", "ppublish")
        + f'\t<Item Name="ArticleIds" Type="List">\n{ids}\t</Item>\n'
        + item("HasAbstract", "1" if work.abstract else "0", "Integer")
        + item("FullJournalName", doc["fulljournalname"])
        + item("ELocationID", doc["elocationid"])
        + "</DocSum>\n\n"
    )


def _xml_author(author: SimAuthor) -> str:
    if author.literal:
        return f'<Author ValidYN="Y"><CollectiveName>{xml_text(author.literal)}</CollectiveName></Author>'
    parts = [f"<LastName>{xml_text(author.family or '')}</LastName>"]
    if author.given:
        parts.append(f"<ForeName>{xml_text(author.given)}</ForeName>")
        parts.append(f"<Initials>{xml_text(author.initials)}</Initials>")
    if author.orcid:
        parts.append(f'<Identifier Source="ORCID">{xml_text(author.orcid)}</Identifier>')
    return f'<Author ValidYN="Y">{"".join(parts)}</Author>'


def pubmed_article(work: SimWork) -> str:
    """efetch's `PubmedArticle` of a work: its MEDLINE citation and its PubMed data."""
    assert work.pmid is not None
    month, day = month_day(work, "pubmed")
    venue = work.venue or "Journal"
    journal_info = (
        f"<MedlineJournalInfo><Country>United States</Country><MedlineTA>{xml_text(venue)}</MedlineTA>"
        f"<NlmUniqueID>{stable_int('nlm', work.venue or '', digits=7)}</NlmUniqueID></MedlineJournalInfo>"
    )
    comments = ""
    if work.retracted:
        comments = (
            '<CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn">'
            f"<RefSource>{xml_text(_retraction_source(work))}</RefSource></CommentsCorrections></CommentsCorrectionsList>"
        )
    ids = [f'<ArticleId IdType="pubmed">{work.pmid}</ArticleId>']
    if work.pmcid:
        ids.append(f'<ArticleId IdType="pmc">{xml_text(work.pmcid)}</ArticleId>')
    if work.doi:
        ids.append(f'<ArticleId IdType="doi">{xml_text(work.doi)}</ArticleId>')
    history = ""
    if work.year:
        history = (
            f'<History><PubMedPubDate PubStatus="pubmed"><Year>{work.year}</Year><Month>{month}</Month>'
            f"<Day>{day}</Day></PubMedPubDate></History>"
        )
    return (
        '<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">'
        f'<PMID Version="1">{work.pmid}</PMID>'
        + _article_xml(work, month, day)
        + journal_info
        + comments
        + "</MedlineCitation><PubmedData>"
        + history
        + "<PublicationStatus>ppublish</PublicationStatus>"
        + f"<ArticleIdList>{''.join(ids)}</ArticleIdList>"
        + "</PubmedData></PubmedArticle>\n"
    )


def _article_xml(work: SimWork, month: int, day: int) -> str:
    """The citation's `Article`: journal issue, title, pages, DOI, abstract, authors, types."""
    venue = work.venue or "Journal"
    pub_date = (
        f"<Year>{work.year}</Year><Month>{MONTHS[month - 1]}</Month>"
        if work.year
        else "<MedlineDate>unknown</MedlineDate>"
    )
    issue = (f"<Volume>{xml_text(work.volume)}</Volume>" if work.volume else "") + (
        f"<Issue>{xml_text(work.issue)}</Issue>" if work.issue else ""
    )
    article = [
        '<Article PubModel="Print">',
        f'<Journal><JournalIssue CitedMedium="Print">{issue}<PubDate>{pub_date}</PubDate></JournalIssue>',
        f"<Title>{xml_text(venue)}</Title><ISOAbbreviation>{xml_text(venue)}</ISOAbbreviation></Journal>",
        f"<ArticleTitle>{xml_text(medline_title(work.display_title))}</ArticleTitle>",
    ]
    if work.pages:
        article.append(
            f"<Pagination><StartPage>{xml_text(work.pages.split('-')[0])}</StartPage><MedlinePgn>{xml_text(work.pages)}</MedlinePgn></Pagination>"
        )
    if work.doi:
        article.append(f'<ELocationID EIdType="doi" ValidYN="Y">{xml_text(work.doi)}</ELocationID>')
    if work.abstract:
        article.append(f"<Abstract><AbstractText>{xml_text(work.abstract)}</AbstractText></Abstract>")
    if work.authors:
        article.append(
            f'<AuthorList CompleteYN="Y">{"".join(_xml_author(a) for a in work.authors)}</AuthorList>'
        )
    article.append("<Language>eng</Language>")
    types = "".join(
        f'<PublicationType UI="{ui}">{name}</PublicationType>' for ui, name in _publication_types(work)
    )
    article.append(f"<PublicationTypeList>{types}</PublicationTypeList>")
    if work.year:
        article.append(
            f'<ArticleDate DateType="Electronic"><Year>{work.year}</Year>'
            f"<Month>{month:02d}</Month><Day>{day:02d}</Day></ArticleDate>"
        )
    article.append("</Article>")
    return "".join(article)

"""The labelled-pair format both checkers enforce: label -> allowed kinds, and the front matter every page needs."""
KINDS = {
    "answers": {"direct", "paraphrase", "chatty", "typo", "table-cell", "list-item", "faq", "site-override"},
    "related": {"other-site", "other-topic-same-site", "detail-missing", "other-service",
                "opposite-or-condition", "general-overridden", "other-period", "generic-for-named",
                "who-acts", "mentions-only"},
    "unrelated": {"unrelated"},
}
REQUIRED = ("source_id", "title", "status", "effective_date")

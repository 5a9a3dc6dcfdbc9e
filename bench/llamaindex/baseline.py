"""LlamaIndex baseline for bench/compare-llamaindex.ts.

The same passages (exported by citetrace from its own index: the revisions in force for the
role and date) and the same questions go through LlamaIndex's CitationQueryEngine, in two
retrieval modes doing the same work as citetrace's `fts` and `vector` modes:

  fts     BM25Retriever (llama-index-retrievers-bm25, bm25s + PyStemmer, English stop words)
  vector  VectorStoreIndex (in-memory SimpleVectorStore) with MiniLMOnnxEmbedding: the very ONNX
          file citetrace embeds with (quantized all-MiniLM-L6-v2), run by onnxruntime, tokenized
          by `tokenizers` from the same tokenizer.json, mean pooling + L2 normalisation

The LLM is ExtractiveMockLLM: deterministic, no network; it answers with the first sentence of
Source 1 of the prompt it is given, cited as [1]. Its own time is measured and reported (llm_ms);
it is a regex over the prompt, so the LlamaIndex figure is framework work plus retrieval.

Per question, everything LlamaIndex does in `engine.query(question)` is timed: query bundle,
instrumentation, retrieval (question embedding included in vector mode), citation-node splitting
(SentenceSplitter), prompt packing (tiktoken token counts), the LLM call and the Response object.
Index building (BM25 index, passage embeddings) happens once, before timing, as in citetrace.

Usage:
  .venv/bin/python baseline.py --input export.json [--rounds 5] [--out result.json]
  .venv/bin/python baseline.py --input export.json --serve     # JSON lines on stdin/stdout
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from typing import Any, Dict, List, Sequence

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.query_engine import CitationQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.retrievers.bm25 import BM25Retriever
from pydantic import PrivateAttr


class Timings:
    """Per-question component timers, filled by the classes below (a perf_counter pair each)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.embed = 0.0
        self.retrieve = 0.0
        self.citation_nodes = 0.0
        self.llm = 0.0


TIMINGS = Timings()


class MiniLMOnnxEmbedding(BaseEmbedding):
    """all-MiniLM-L6-v2 (the ONNX file citetrace provisions) on onnxruntime: mean pooling, L2 norm."""

    _session: Any = PrivateAttr()
    _tokenizer: Any = PrivateAttr()
    _inputs: List[str] = PrivateAttr()

    def __init__(self, model_dir: str, **kwargs: Any) -> None:
        super().__init__(model_name="all-MiniLM-L6-v2-q8", embed_batch_size=32, **kwargs)
        self._session = ort.InferenceSession(
            os.path.join(model_dir, "onnx", "model_quantized.onnx"), providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        # The jar's tokenizer.json pads every input to 128 tokens; citetrace (transformers.js) pads
        # to the longest input of a batch and truncates at model_max_length 512. Do the same.
        tokenizer.no_padding()
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        tokenizer.enable_truncation(max_length=512)
        self._tokenizer = tokenizer
        self._inputs = [i.name for i in self._session.get_inputs()]

    @classmethod
    def class_name(cls) -> str:
        return "MiniLMOnnxEmbedding"

    def _embed(self, texts: Sequence[str]) -> List[List[float]]:
        start = time.perf_counter()
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        TIMINGS.embed += time.perf_counter() - start
        return pooled.tolist()

    def _get_query_embedding(self, query: str) -> List[float]:
        return self._embed([query])[0]

    async def _aget_query_embedding(self, query: str) -> List[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> List[float]:
        return self._embed([text])[0]

    def _get_text_embeddings(self, texts: List[str]) -> List[List[float]]:
        return self._embed(texts)


# The citation template has a worked example with its own "Source 1:" first; the real sources
# follow the first "------" line.
SOURCE_1 = re.compile(r"\n------\n.*?Source 1:\n(.*?)(?:\nSource \d+:|\n------)", re.S)
SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)", re.S)


class ExtractiveMockLLM(CustomLLM):
    """Deterministic stand-in for an LLM: the first sentence of Source 1, cited as [1]."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=3900, num_output=256, model_name="extractive-mock")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        start = time.perf_counter()
        found = SOURCE_1.search(prompt)
        text = "I cannot find this in the sources."
        if found is not None:
            body = " ".join(found.group(1).split())
            sentence = SENTENCE.match(body)
            text = f"{(sentence.group(1) if sentence else body).strip()} [1]"
        TIMINGS.llm += time.perf_counter() - start
        return CompletionResponse(text=text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt, formatted=formatted, **kwargs)


class FixedLLM(CustomLLM):
    """For the probes: always answers `text`, whatever the sources say."""

    text: str

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=3900, num_output=256, model_name="fixed-mock")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt, formatted=formatted, **kwargs)


def probe(state: Dict[str, Any], question: str) -> Dict[str, Any]:
    """What CitationQueryEngine does with a bad answer: a label no source has, and a sentence
    without any label. Shown to the user unchanged means the check is not performed."""
    retriever = state["engines"]["fts"].retriever
    out: Dict[str, Any] = {}
    for name, text in {
        "unknown_label": "The Harbor Clinic lab is open 24 hours. [9]",
        "uncited_sentence": "The Harbor Clinic lab is open 24 hours.",
    }.items():
        response = CitationQueryEngine(retriever=retriever, llm=FixedLLM(text=text)).query(question)
        out[name] = {"llm_said": text, "user_sees": str(response), "passed_through": str(response) == text, "source_nodes": len(response.source_nodes)}
    return out


class TimedCitationQueryEngine(CitationQueryEngine):
    """CitationQueryEngine unchanged, with timers around its retrieval and citation-node split."""

    def retrieve(self, query_bundle: QueryBundle) -> List[NodeWithScore]:
        start = time.perf_counter()
        try:
            return super().retrieve(query_bundle)
        finally:
            TIMINGS.retrieve += time.perf_counter() - start

    def _create_citation_nodes(self, nodes: List[NodeWithScore]) -> List[NodeWithScore]:
        start = time.perf_counter()
        try:
            return super()._create_citation_nodes(nodes)
        finally:
            TIMINGS.citation_nodes += time.perf_counter() - start


def load_nodes(passages: List[Dict[str, Any]]) -> List[TextNode]:
    """One TextNode per citetrace passage; title and headings go into the embedded/keyword text,
    as citetrace's search text (title, headings, passage) does."""
    nodes = []
    for p in passages:
        nodes.append(
            TextNode(
                id_=p["chunk_id"],
                text=p["text"],
                metadata={
                    "title": p["title"],
                    "headings": " / ".join(p["headings"]),
                    "source_id": p["source_id"],
                    "revision": p["revision"],
                    "version": p["version"] or "",
                },
                excluded_embed_metadata_keys=["source_id", "revision", "version"],
                excluded_llm_metadata_keys=["title", "headings", "source_id", "revision", "version"],
            )
        )
    return nodes


def build(export: Dict[str, Any]) -> Dict[str, Any]:
    k = int(export["k"])
    embedder = MiniLMOnnxEmbedding(export["model_dir"])
    llm = ExtractiveMockLLM()
    Settings.llm = llm
    Settings.embed_model = embedder
    nodes = load_nodes(export["passages"])
    t0 = time.perf_counter()
    bm25 = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=k, language="english")
    fts = TimedCitationQueryEngine(retriever=bm25, llm=llm)
    t1 = time.perf_counter()
    index = VectorStoreIndex(nodes, embed_model=embedder)
    vector = TimedCitationQueryEngine(retriever=index.as_retriever(similarity_top_k=k), llm=llm)
    t2 = time.perf_counter()
    check = None
    ref = export.get("reference")
    if ref:
        mine = np.array(embedder.get_query_embedding(ref["text"]), dtype=np.float32)
        theirs = np.array(ref["vector"], dtype=np.float32)
        check = {"cosine": float(mine @ theirs), "max_abs_diff": float(np.abs(mine - theirs).max())}
    return {
        "engines": {"fts": fts, "vector": vector},
        "build": {"fts_ms": (t1 - t0) * 1000, "vector_ms": (t2 - t1) * 1000, "nodes": len(nodes)},
        "embedding_check": check,
    }


def ask(engine: CitationQueryEngine, question: str) -> Dict[str, Any]:
    TIMINGS.reset()
    start = time.perf_counter()
    response = engine.query(question)
    ms = (time.perf_counter() - start) * 1000
    return {
        "ms": ms,
        "embed_ms": TIMINGS.embed * 1000,
        "retrieve_ms": TIMINGS.retrieve * 1000,
        "citation_nodes_ms": TIMINGS.citation_nodes * 1000,
        "llm_ms": TIMINGS.llm * 1000,
        "answer": str(response),
        "sources": [n.node.metadata.get("source_id") for n in response.source_nodes],
    }


def percentile(values: List[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))] if s else 0.0


def serve(state: Dict[str, Any], questions: List[str]) -> None:
    out = sys.stdout
    out.write(json.dumps({"ready": True, "build": state["build"], "embedding_check": state["embedding_check"]}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("quit"):
            break
        if request.get("probe"):
            out.write(json.dumps(probe(state, questions[int(request["i"])])) + "\n")
            out.flush()
            continue
        result = ask(state["engines"][request["mode"]], questions[int(request["i"])])
        out.write(json.dumps(result) + "\n")
        out.flush()


def standalone(state: Dict[str, Any], questions: List[str], rounds: int, out_file: str | None) -> None:
    report: Dict[str, Any] = {"build": state["build"], "embedding_check": state["embedding_check"], "modes": {}}
    for mode, engine in state["engines"].items():
        for q in questions[:10]:
            ask(engine, q)
        samples = [ask(engine, q) for _ in range(rounds) for q in questions]
        ms = [s["ms"] for s in samples]
        report["modes"][mode] = {
            "questions": len(ms),
            "p50": percentile(ms, 50),
            "p95": percentile(ms, 95),
            "embed_p50": percentile([s["embed_ms"] for s in samples], 50),
            "retrieve_p50": percentile([s["retrieve_ms"] for s in samples], 50),
            "llm_p50": percentile([s["llm_ms"] for s in samples], 50),
        }
        print(f"llamaindex {mode:6}  p50 {report['modes'][mode]['p50']:.2f} ms  p95 {report['modes'][mode]['p95']:.2f} ms  over {len(ms)} questions")
    if out_file:
        with open(out_file, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", required=True, help="passages and questions exported by bench/compare-llamaindex.ts")
    parser.add_argument("--serve", action="store_true", help="answer JSON-line requests {mode, i} on stdin")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    with open(args.input, encoding="utf-8") as f:
        export = json.load(f)
    state = build(export)
    if args.serve:
        serve(state, export["questions"])
    else:
        standalone(state, export["questions"], args.rounds, args.out)


if __name__ == "__main__":
    main()

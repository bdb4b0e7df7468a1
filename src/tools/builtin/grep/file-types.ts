/**
 * File types for `type`, as ripgrep's `--type` defines them (a subset of `rg --type-list`:
 * the common ones). Each glob matches a file's base name. ripgrep knows more types; the
 * JavaScript fallback refuses the others with a clear error.
 */
const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  asm: ["*.S", "*.asm", "*.s"],
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  clojure: ["*.clj", "*.cljc", "*.cljs", "*.cljx"],
  cmake: ["*.cmake", "CMakeLists.txt"],
  config: ["*.cfg", "*.conf", "*.config", "*.ini"],
  cpp: [
    "*.[ChH]",
    "*.[ChH].in",
    "*.[ch]pp",
    "*.[ch]pp.in",
    "*.[ch]xx",
    "*.[ch]xx.in",
    "*.cc",
    "*.cc.in",
    "*.hh",
    "*.hh.in",
    "*.inl",
  ],
  cs: ["*.cs"],
  css: ["*.css", "*.scss"],
  csv: ["*.csv"],
  dart: ["*.dart"],
  docker: ["*Dockerfile*"],
  elixir: ["*.eex", "*.ex", "*.exs"],
  elm: ["*.elm"],
  erlang: ["*.erl", "*.hrl"],
  fsharp: ["*.fs", "*.fsi", "*.fsx"],
  go: ["*.go"],
  h: ["*.h", "*.hpp"],
  haskell: ["*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"],
  html: ["*.ejs", "*.htm", "*.html"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"],
  json: ["*.json", "composer.lock"],
  jsonl: ["*.jsonl"],
  julia: ["*.jl"],
  kotlin: ["*.kt", "*.kts"],
  less: ["*.less"],
  lua: ["*.lua"],
  make: ["*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  objc: ["*.h", "*.m"],
  ocaml: ["*.ml", "*.mli", "*.mll", "*.mly"],
  perl: ["*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.phtml"],
  protobuf: ["*.proto"],
  ps: ["*.cdxml", "*.ps1", "*.ps1xml", "*.psd1", "*.psm1"],
  py: ["*.py", "*.pyi"],
  r: ["*.R", "*.Rmd", "*.Rnw", "*.r"],
  ruby: ["*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  sass: ["*.sass", "*.scss"],
  scala: ["*.sbt", "*.scala"],
  sh: ["*.bash", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bashrc", ".profile", ".zshrc"],
  sql: ["*.psql", "*.sql"],
  svg: ["*.svg"],
  swift: ["*.swift"],
  tex: ["*.bib", "*.cls", "*.dtx", "*.ins", "*.ltx", "*.sty", "*.tex"],
  tf: ["*.tf", "*.tfvars"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.ts", "*.tsx", "*.cts", "*.mts"],
  txt: ["*.txt"],
  vim: ["*.vim"],
  xml: ["*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"],
  yaml: ["*.yaml", "*.yml"],
  zig: ["*.zig"],
};

/** The base-name globs of a file type, or undefined when the type is not in the table. */
export function typeGlobs(type: string): readonly string[] | undefined {
  return Object.hasOwn(FILE_TYPES, type) ? FILE_TYPES[type] : undefined;
}

/** Names of the types in the table, sorted. */
export function knownTypeNames(): string[] {
  return Object.keys(FILE_TYPES).sort();
}

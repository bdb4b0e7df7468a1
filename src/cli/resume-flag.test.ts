import { describe, expect, it } from "vitest";
import { takeBareResume } from "./resume-flag.js";

describe("takeBareResume", () => {
  it("takes out -r or --resume with no id after it: last, or before another option", () => {
    expect(takeBareResume(["hi", "-r"])).toEqual({ args: ["hi"], bare: "-r" });
    expect(takeBareResume(["--resume", "--model", "m", "hi"])).toEqual({
      args: ["--model", "m", "hi"],
      bare: "--resume",
    });
  });

  it("leaves a flag with its id, and anything after --", () => {
    expect(takeBareResume(["-r", "abc", "hi"])).toEqual({ args: ["-r", "abc", "hi"], bare: undefined });
    expect(takeBareResume(["hi", "--", "-r"])).toEqual({ args: ["hi", "--", "-r"], bare: undefined });
    expect(takeBareResume(["--resume=abc"])).toEqual({ args: ["--resume=abc"], bare: undefined });
  });
});

// The page imports its stylesheet; Vite bundles it.
declare module "*.css";

/** The package ships a plain JSON list of webmail domains without types. */
declare module 'email-providers' {
  const domains: string[];
  export default domains;
}
